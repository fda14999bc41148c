package engine_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/reprobench/reprobench/engine"
)

// TestAlignLevelWord checks that the levelling word is synchronizing for
// the fast box's ring as modelled (engine.FboxNext): from every one of the
// 127 slots the ring ends at the same slot, with the match header Open MPI
// 4.1's ob1 sends (16 bytes) and with one 8 bytes smaller or larger, for
// which every message takes as many slots.
func TestAlignLevelWord(t *testing.T) {
	for _, hdr := range []int{8, 14, 16, 24} {
		end := -1
		for start := 1; start <= 127; start++ {
			pos := start
			for i := range len(engine.AlignLevelWord) {
				s := int(engine.AlignLevelWord[i] - '0')
				if s < 1 || s > 8 {
					t.Fatalf("letter %d is %q, want a digit 1-8", i, engine.AlignLevelWord[i])
				}
				if got := engine.FboxSlots(hdr, engine.AlignLevelPayload(s)); got != s {
					t.Fatalf("header %d B: a message for %d slots (%d B) takes %d", hdr, s, engine.AlignLevelPayload(s), got)
				}
				pos = engine.FboxNext(pos, s)
			}
			if end < 0 {
				end = pos
			}
			if pos != end {
				t.Fatalf("header %d B: from slot 1 the word ends at slot %d, from slot %d at %d", hdr, end, start, pos)
			}
		}
	}
	// The model itself: a one-slot message moves the ring by one, a
	// message that does not fit skips to the first slot.
	for _, c := range []struct{ pos, slots, want int }{{1, 1, 2}, {126, 1, 127}, {127, 1, 1}, {120, 8, 1}, {121, 8, 9}, {127, 2, 3}} {
		if got := engine.FboxNext(c.pos, c.slots); got != c.want {
			t.Errorf("FboxNext(%d, %d) = %d, want %d", c.pos, c.slots, got, c.want)
		}
	}
}

// TestRingLevelWordMatches keeps bench/fidelity/ring.c's move L, which
// shows the levelling in a plain C program, playing the engine's word: the
// C file holds a copy of it (a standalone program, built alone by mpicc).
func TestRingLevelWordMatches(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "bench", "fidelity", "ring.c"))
	if err != nil {
		t.Fatal(err)
	}
	decl := regexp.MustCompile(`(?s)static const char level_word\[\] =(.*?);`).FindSubmatch(src)
	if decl == nil {
		t.Fatal("ring.c declares no level_word")
	}
	var word strings.Builder
	for _, lit := range regexp.MustCompile(`"([0-9]*)"`).FindAllSubmatch(decl[1], -1) {
		word.Write(lit[1])
	}
	if got := word.String(); got != engine.AlignLevelWord {
		t.Errorf("ring.c's level_word has %d letters and differs from engine's alignLevelWord (%d letters)", len(got), len(engine.AlignLevelWord))
	}
}
