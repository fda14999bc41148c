package doccheck

import (
	"bufio"
	"bytes"
	"fmt"
	"html"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// Slug returns GitHub's anchor for a heading whose rendered plain text is
// text, without the suffix that makes repeated headings unique (see Slugger).
func Slug(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-', unicode.IsLetter(r), unicode.IsMark(r),
			unicode.Is(unicode.Nd, r), unicode.Is(unicode.Nl, r), unicode.Is(unicode.Pc, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// A Slugger hands out the anchors of one document's headings in order,
// making repeated ones unique as GitHub does: the second "Foo" is "foo-1",
// and a suffixed slug that is already taken counts on ("foo-1-1").
// The zero value is ready to use.
type Slugger struct {
	seen map[string]int
}

// Slug returns the unique anchor of the next heading with plain text text.
func (s *Slugger) Slug(text string) string {
	if s.seen == nil {
		s.seen = map[string]int{}
	}
	base := Slug(text)
	res := base
	for {
		if _, taken := s.seen[res]; !taken {
			break
		}
		s.seen[base]++
		res = base + "-" + strconv.Itoa(s.seen[base])
	}
	s.seen[res] = 0
	return res
}

// A Link is a link target found in a Markdown file.
type Link struct {
	Line   int    // 1-based line of the link
	Target string // as written: "docs/cli.md#flags", "#usage", "../x.md"
}

// A Heading is an ATX or setext heading of a Markdown file.
type Heading struct {
	Line  int
	Level int    // 1 for "#", 2 for "##", …
	Text  string // rendered plain text: code spans, links and emphasis resolved
}

var (
	atxRe       = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	setextRe    = regexp.MustCompile(`^ {0,3}(=+|-+)[ \t]*$`)
	fenceRe     = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
	codeSpanRe  = regexp.MustCompile("(`+)(.*?)(`+)")
	inlineRe    = regexp.MustCompile(`!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(\s*(<[^>]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)`)
	refDefRe    = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)`)
	hrefRe      = regexp.MustCompile(`(?i)<(?:a|img)\b[^>]*?\b(?:href|src)\s*=\s*"([^"]*)"`)
	anchorIDRe  = regexp.MustCompile(`(?i)<[a-z][a-z0-9]*\b[^>]*?\b(?:id|name)\s*=\s*"([^"]*)"`)
	tagRe       = regexp.MustCompile(`</?[A-Za-z][^>]*>`)
	emphUnderRe = regexp.MustCompile(`(^|[^\pL\pN_])_+([^_]+?)_+([^\pL\pN_]|$)`)
	schemeRe    = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
)

// plainText renders a heading's inline Markdown as the text GitHub slugs:
// code spans keep their content, links their text, tags and emphasis go.
func plainText(s string) string {
	s = inlineRe.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasPrefix(m, "!") {
			return ""
		}
		return inlineRe.FindStringSubmatch(m)[1]
	})
	s = codeSpanRe.ReplaceAllStringFunc(s, func(m string) string {
		sub := codeSpanRe.FindStringSubmatch(m)
		if len(sub[1]) != len(sub[3]) {
			return m
		}
		// Shield the content from the rules below; restored at the end.
		return "\x00" + strings.TrimSpace(sub[2]) + "\x01"
	})
	var out strings.Builder
	for len(s) > 0 {
		i := strings.IndexByte(s, '\x00')
		if i < 0 {
			out.WriteString(renderInline(s))
			break
		}
		out.WriteString(renderInline(s[:i]))
		j := strings.IndexByte(s[i:], '\x01')
		out.WriteString(s[i+1 : i+j])
		s = s[i+j+1:]
	}
	return strings.TrimSpace(out.String())
}

// renderInline resolves tags, emphasis, escapes and entities in text that
// holds no code span.
func renderInline(s string) string {
	s = tagRe.ReplaceAllString(s, "")
	for {
		t := emphUnderRe.ReplaceAllString(s, "$1$2$3")
		if t == s {
			break
		}
		s = t
	}
	s = strings.NewReplacer(`\_`, "_", `\*`, "*", `\#`, "#", `\[`, "[", `\]`, "]", `\\`, `\`).Replace(s)
	return html.UnescapeString(s)
}

// Parse returns the headings, explicit anchors and links of a Markdown
// document. Fenced code blocks contribute nothing; inline code spans hold
// no links.
func Parse(md []byte) (headings []Heading, anchors []string, links []Link) {
	sc := bufio.NewScanner(bytes.NewReader(md))
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	var fence string // the opening fence while inside a code block
	prev, prevLine := "", 0
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if fence != "" {
			if m := fenceRe.FindStringSubmatch(line); m != nil && m[1][0] == fence[0] && len(m[1]) >= len(fence) &&
				strings.TrimSpace(line[len(m[0]):]) == "" {
				fence = ""
			}
			prev = ""
			continue
		}
		if m := fenceRe.FindStringSubmatch(line); m != nil {
			fence = m[1]
			prev = ""
			continue
		}
		if m := atxRe.FindStringSubmatch(line); m != nil {
			headings = append(headings, Heading{Line: n, Level: len(m[1]), Text: plainText(m[2])})
		} else if m := setextRe.FindStringSubmatch(line); m != nil && strings.TrimSpace(prev) != "" &&
			!strings.HasPrefix(strings.TrimSpace(prev), "|") && !strings.HasPrefix(strings.TrimSpace(prev), "-") {
			level := 1
			if m[1][0] == '-' {
				level = 2
			}
			headings = append(headings, Heading{Line: prevLine, Level: level, Text: plainText(prev)})
		}
		for _, m := range anchorIDRe.FindAllStringSubmatch(line, -1) {
			anchors = append(anchors, m[1])
		}
		code := codeSpanRe.ReplaceAllString(line, "")
		for _, m := range inlineRe.FindAllStringSubmatch(code, -1) {
			links = append(links, Link{Line: n, Target: strings.Trim(m[2], "<>")})
		}
		if m := refDefRe.FindStringSubmatch(code); m != nil {
			links = append(links, Link{Line: n, Target: strings.Trim(m[1], "<>")})
		}
		for _, m := range hrefRe.FindAllStringSubmatch(code, -1) {
			links = append(links, Link{Line: n, Target: m[1]})
		}
		prev, prevLine = line, n
	}
	return headings, anchors, links
}

// Anchors returns every fragment a link into the document may use: its
// headings' unique slugs and its explicit id and name attributes.
func Anchors(md []byte) map[string]bool {
	hs, ids, _ := Parse(md)
	set := map[string]bool{}
	var s Slugger
	for _, h := range hs {
		set[s.Slug(h.Text)] = true
	}
	for _, id := range ids {
		set[id] = true
	}
	return set
}

// A Problem is a link that does not resolve.
type Problem struct {
	File   string // the Markdown file, relative to the root
	Line   int
	Target string
	Why    string
}

func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", p.File, p.Line, p.Target, p.Why)
}

// Check resolves every relative link of the Markdown files (paths relative
// to root, slash-separated) and returns the links that do not resolve: a
// missing file or directory, a path that leaves root, or a fragment that is
// not an anchor of the Markdown file it names. A link starting with "/" is
// relative to root, as on GitHub. Only I/O errors on the files themselves
// are returned as an error.
func Check(root string, files []string) ([]Problem, error) {
	anchors := map[string]map[string]bool{} // by slash path
	anchorsOf := func(p string) (map[string]bool, error) {
		if a, ok := anchors[p]; ok {
			return a, nil
		}
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			return nil, err
		}
		anchors[p] = Anchors(b)
		return anchors[p], nil
	}
	var probs []Problem
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			return nil, err
		}
		_, _, links := Parse(b)
		for _, l := range links {
			if why := resolve(root, f, l.Target, anchorsOf); why != "" {
				probs = append(probs, Problem{File: f, Line: l.Line, Target: l.Target, Why: why})
			}
		}
	}
	return probs, nil
}

// resolve returns why target, written in file from, does not resolve, or "".
func resolve(root, from, target string, anchorsOf func(string) (map[string]bool, error)) string {
	if target == "" {
		return "empty link"
	}
	if schemeRe.MatchString(target) || strings.HasPrefix(target, "//") {
		return "" // absolute URL: not ours to check
	}
	p, frag, _ := strings.Cut(target, "#")
	p, _, _ = strings.Cut(p, "?")
	up, err := url.PathUnescape(p)
	if err != nil {
		return "bad escape in path"
	}
	var dest string
	switch {
	case up == "":
		dest = from
	case strings.HasPrefix(up, "/"):
		dest = path.Clean(strings.TrimPrefix(up, "/"))
	default:
		dest = path.Join(path.Dir(from), up)
	}
	if dest == ".." || strings.HasPrefix(dest, "../") {
		return "leaves the repository"
	}
	st, err := os.Stat(filepath.Join(root, filepath.FromSlash(dest)))
	if err != nil {
		return "no such file or directory"
	}
	if frag == "" {
		return ""
	}
	if st.IsDir() || !strings.HasSuffix(strings.ToLower(dest), ".md") {
		return "" // line anchors of source files and the like: GitHub's, not ours
	}
	ufrag, err := url.PathUnescape(frag)
	if err != nil {
		return "bad escape in fragment"
	}
	a, err := anchorsOf(dest)
	if err != nil {
		return err.Error()
	}
	if !a[ufrag] {
		return fmt.Sprintf("no heading or anchor #%s in %s", ufrag, dest)
	}
	return ""
}
