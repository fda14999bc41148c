package doccheck

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The sequence is the start of github-slugger's test/fixtures.json
// (github.com/Flet/github-slugger), which follows GitHub's rendering: one
// Slugger over all of them, so the repetitions count on.
func TestSluggerGitHubFixtures(t *testing.T) {
	cases := []struct{ in, want string }{
		{"alpha", "alpha"},
		{"alpha", "alpha-1"},
		{"bravoCharlieDelta", "bravocharliedelta"},
		{"__proto__", "__proto__"},
		{"__proto__", "__proto__-1"},
		{"hasOwnProperty", "hasownproperty"},
		{"echo", "echo"},
		{"echo", "echo-1"},
		{"echo 1", "echo-1-1"},
		{"echo-1", "echo-1-2"},
		{"echo", "echo-2"},
		{"foxtrot-1", "foxtrot-1"},
		{"foxtrot", "foxtrot"},
		{"foxtrot", "foxtrot-2"},
		{"heading with a - dash", "heading-with-a---dash"},
		{"heading with an _ underscore", "heading-with-an-_-underscore"},
		{"heading with a period.txt", "heading-with-a-periodtxt"},
		{"exchange.bind_headers(exchange, routing [, bindCallback])", "exchangebind_headersexchange-routing--bindcallback"},
		{"apostrophe’s should be trimmed", "apostrophes-should-be-trimmed"},
		{"I ♥ unicode", "i--unicode"},
		{"en–dash", "endash"},
		{"😄 unicode emoji", "-unicode-emoji"},
		{"😄_😄 unicode emoji", "_-unicode-emoji"},
		{"Привет non-latin 你好", "привет-non-latin-你好"},
		{"a» ’ ” › ⸃ ⸅ ⸊ ⸍ ⸝ ⸡b", "a---------b"},
		{"aa f k q v µ ä é", "aa-f-k-q-v-µ-ä-é"},
		{"aᛮ ᛯ Ⅰ Ⅱ", "aᛮ-ᛯ-ⅰ-ⅱ"},
	}
	var s Slugger
	for _, c := range cases {
		if got := s.Slug(c.in); got != c.want {
			t.Errorf("Slug(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Headings with inline Markdown: GitHub slugs the rendered text. Cases from
// vscode-markdown's GitHub slug tests (src/test/suite/slugify.test.ts).
func TestHeadingPlainText(t *testing.T) {
	cases := []struct{ md, want string }{
		{"# foo _italic_ bar", "foo-italic-bar"},
		{"# foo_foo_bar", "foo_foo_bar"},
		{"# `a.b` c", "ab-c"},
		{"# 1. not a list", "1-not-a-list"},
		{"## Closed ATX ##", "closed-atx"},
		{"## A [link](x.md) and **bold**", "a-link-and-bold"},
		{"## `MPI_Put` with `--rma-sync`", "mpi_put-with---rma-sync"},
		{"Setext one\n===", "setext-one"},
	}
	for _, c := range cases {
		hs, _, _ := Parse([]byte(c.md))
		if len(hs) != 1 {
			t.Errorf("%q: %d headings, want 1", c.md, len(hs))
			continue
		}
		if got := Slug(hs[0].Text); got != c.want {
			t.Errorf("%q: text %q slugs to %q, want %q", c.md, hs[0].Text, got, c.want)
		}
	}
}

func TestParseSkipsCode(t *testing.T) {
	md := strings.Join([]string{
		"# Title",
		"See [a](a.md) and `[not](b.md)`.",
		"````sh",
		"# not a heading",
		"```",
		"[not](c.md)",
		"````",
		"~~~",
		"[not](d.md)",
		"~~~",
		`<a id="here"></a>[e](e.md#x "title") ![img](f.png)`,
		"[ref]: g.md",
		`<a href="h.md">h</a>`,
		"Text",
		"---",
	}, "\n")
	hs, ids, links := Parse([]byte(md))
	var texts []string
	for _, h := range hs {
		texts = append(texts, h.Text)
	}
	if want := []string{"Title", "Text"}; !slices.Equal(texts, want) {
		t.Errorf("headings %q, want %q", texts, want)
	}
	if !slices.Equal(ids, []string{"here"}) {
		t.Errorf("anchors %q, want [here]", ids)
	}
	var targets []string
	for _, l := range links {
		targets = append(targets, fmt.Sprintf("%d:%s", l.Line, l.Target))
	}
	want := []string{"2:a.md", "11:e.md#x", "11:f.png", "12:g.md", "13:h.md"}
	if !slices.Equal(targets, want) {
		t.Errorf("links %q, want %q", targets, want)
	}
}

// TestCheckFindsEachKind builds a small tree with one link of every kind
// that must pass and one of every kind that must fail, and requires exactly
// the failing ones back.
func TestCheckFindsEachKind(t *testing.T) {
	root := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("README.md", strings.Join([]string{
		"# Top",
		"## Usage",
		"[ok](docs/page.md) [ok](docs/page.md#the-second-part) [ok](#usage) [ok](docs)",
		"[ok](main.go#L3) [ok](https://example.org/x.md#nothing) [ok](/docs/page.md#same-name-1)",
		"[bad](docs/missing.md)",
		"[bad](docs/page.md#no-such-part)",
		"[bad](#usage-1)",
		"[bad](../outside.md)",
		"[ok](docs/page.md#kept)",
	}, "\n"))
	write("main.go", "package main\n")
	write("docs/page.md", strings.Join([]string{
		"# Page",
		"## The second part",
		"## Same name",
		"## Same name",
		`<a name="kept"></a>`,
		"[ok](../README.md#top) [bad](../README.md#Top)",
	}, "\n"))
	probs, err := Check(root, []string{"README.md", "docs/page.md"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range probs {
		got = append(got, fmt.Sprintf("%s:%d:%s", p.File, p.Line, p.Target))
	}
	want := []string{
		"README.md:5:docs/missing.md",
		"README.md:6:docs/page.md#no-such-part",
		"README.md:7:#usage-1",
		"README.md:8:../outside.md",
		"docs/page.md:6:../README.md#Top",
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func ExampleSlug() {
	fmt.Println(Slug("Why reprobench's numbers differ from OSU's"))
	fmt.Println(Slug("Put with fence: the first window"))
	fmt.Println(Slug("A cluster on one machine (`make vcluster`)"))
	// Output:
	// why-reprobenchs-numbers-differ-from-osus
	// put-with-fence-the-first-window
	// a-cluster-on-one-machine-make-vcluster
}
