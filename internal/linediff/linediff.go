package linediff

import (
	"fmt"
	"strings"
)

// Lines lists the first max lines (numbered from 1) at which want and have
// differ, each as "line N:\n- WANT\n+ HAVE\n", followed by "…\n" when more
// lines differ; a line missing from one text reads as empty. It returns ""
// when the texts have the same lines. max < 1 is read as 1.
func Lines(want, have string, max int) string {
	w, h := strings.Split(want, "\n"), strings.Split(have, "\n")
	var b strings.Builder
	n := 0
	for i := 0; i < len(w) || i < len(h); i++ {
		var a, c string
		if i < len(w) {
			a = w[i]
		}
		if i < len(h) {
			c = h[i]
		}
		if a == c {
			continue
		}
		if n++; n > max && n > 1 {
			b.WriteString("…\n")
			break
		}
		fmt.Fprintf(&b, "line %d:\n- %s\n+ %s\n", i+1, a, c)
	}
	return b.String()
}
