package report

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/internal/mpirun"
)

// chromium returns the path of a Chromium (Debian's package "chromium";
// scripts/setup.sh installs it), or skips the test, or fails it where the
// browser is required: RB_REQUIRE_CHROMIUM=1 (make test sets it) or CI=true.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no Chromium to render the report in (Debian: apt-get install -y chromium; make setup installs it)"
	if os.Getenv("RB_REQUIRE_CHROMIUM") == "1" || os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg + "; set RB_REQUIRE_CHROMIUM=1 to fail instead")
	return ""
}

// rendering is what a headless Chromium made of a page.
type rendering struct {
	shot     image.Image
	shotPath string
	dom      string
	stderr   string
	// loads are the URLs the page (not the browser itself) asked the
	// network for, from Chromium's NetLog.
	loads []string
}

// render opens file in a headless Chromium with a fresh profile and every
// host name unresolvable (so that any load from the network fails and is
// logged), takes a screenshot of width×height pixels, and (withDOM) dumps the DOM,
// recording every network request in a NetLog. Root needs --no-sandbox.
func render(t *testing.T, bin, file string, width, height int, withDOM bool) rendering {
	t.Helper()
	dir := t.TempDir()
	shot := filepath.Join(dir, "shot.png")
	url := "file://" + file
	var loads []string
	run := func(extra ...string) (string, string) {
		netlog := filepath.Join(t.TempDir(), "netlog.json")
		extra = append(extra, "--log-net-log="+netlog)
		ctx, cancel := context.WithTimeout(context.Background(), mpirun.Deadline(90*time.Second))
		defer cancel()
		args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
			"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
			"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0",
			"--host-resolver-rules=MAP * ~NOTFOUND", "--hide-scrollbars"}, extra...)
		args = append(args, url)
		cmd := exec.CommandContext(ctx, bin, args...)
		var so, se bytes.Buffer
		cmd.Stdout, cmd.Stderr = &so, &se
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, se.String())
		}
		loads = append(loads, pageLoads(t, netlog)...)
		return so.String(), se.String()
	}
	_, e1 := run("--screenshot="+shot, "--window-size="+strconv.Itoa(width)+","+strconv.Itoa(height))
	var dom, e2 string
	if withDOM {
		dom, e2 = run("--dump-dom")
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v\n%s", err, e1)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	return rendering{shot: img, shotPath: shot, dom: dom, stderr: e1 + e2, loads: loads}
}

// pageLoads returns the URLs of the requests in a Chromium NetLog that a
// page opened from a file made (their network isolation key is file://)
// other than file: and data: URLs; Chromium's own background requests
// (updates, time) have another key.
func pageLoads(t *testing.T, netlog string) []string {
	t.Helper()
	b, err := os.ReadFile(netlog)
	if err != nil {
		t.Fatalf("no NetLog: %v", err)
	}
	// Chromium may leave the NetLog without its closing brackets when it
	// exits; the events are what matter.
	var log struct {
		Events []struct {
			Params map[string]any `json:"params"`
		} `json:"events"`
	}
	if err := json.Unmarshal(b, &log); err != nil {
		s := strings.TrimRight(string(b), ",\n ")
		if err := json.Unmarshal([]byte(s+"]}"), &log); err != nil {
			t.Fatalf("NetLog %s: %v", netlog, err)
		}
	}
	var out []string
	for _, e := range log.Events {
		u, _ := e.Params["url"].(string)
		nik, _ := e.Params["network_isolation_key"].(string)
		if u != "" && strings.Contains(nik, "file://") && !strings.HasPrefix(u, "file:") && !strings.HasPrefix(u, "data:") {
			out = append(out, u)
		}
	}
	return out
}

// consoleMessage matches a message of the page's console in Chromium's
// log (--enable-logging: 'INFO:CONSOLE:1] "boom", source: …'); the level
// is not logged, and a page without script has none but errors, such as a
// load its Content-Security-Policy refused.
var consoleMessage = regexp.MustCompile(`(?m)^.*:CONSOLE[:(].*$`)

// problems returns the console messages and the network loads of a
// rendering.
func (r rendering) problems() []string {
	return append(consoleMessage.FindAllString(r.stderr, -1), r.loads...)
}

// colors counts the distinct colors of an image, up to limit.
func colors(img image.Image, limit int) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r >> 8, g >> 8, bl >> 8, a >> 8}] = true
			if len(seen) >= limit {
				return len(seen)
			}
		}
	}
	return len(seen)
}

// TestChromium renders the demo-like report in a real browser: the page is
// not blank (the screenshot has many colors), Chromium logs no console
// error and no failed or refused load while every host name is
// unresolvable, and the DOM it built has every section and the figures.
// Two control pages show that the checks can fail: a blank page gives a
// one-color screenshot, and a page with an external image and a console
// error is caught.
func TestChromium(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	a, b := demoLike(5, 60)
	r, err := New(twoSides(t, a, b), Options{Analysis: analysis.DefaultOptions, Generated: time.Now(), Generator: "report test"})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got := render(t, bin, page, 1280, 2400, true)
	if n := colors(got.shot, 64); n < 32 {
		t.Errorf("screenshot has %d colors: blank or nearly", n)
	}
	if p := got.problems(); len(p) > 0 {
		t.Errorf("Chromium logged %d problems:\n%s", len(p), strings.Join(p, "\n"))
	}
	doc, err := html.Parse(strings.NewReader(got.dom))
	if err != nil {
		t.Fatal(err)
	}
	f := inspect(doc)
	for _, id := range []string{"summary", "groups", "comparison", "method", "machine", "rules"} {
		if !f.ids[id] {
			t.Errorf("the browser's DOM has no #%s", id)
		}
	}
	if f.svgs != 3 || f.classCount["rule"] != 12 {
		t.Errorf("the browser's DOM has %d figures and %d rules, want 3 and 12", f.svgs, f.classCount["rule"])
	}
	if os.Getenv("RB_REPORT_SHOT") != "" { // keep the screenshot to look at
		if err := copyFile(got.shotPath, os.Getenv("RB_REPORT_SHOT")); err != nil {
			t.Log(err)
		}
	}

	// Controls: a blank page, a page that loads from the network, and one
	// whose loads the Content-Security-Policy refuses.
	blank := filepath.Join(dir, "blank.html")
	loads := filepath.Join(dir, "loads.html")
	refused := filepath.Join(dir, "refused.html")
	for f, body := range map[string]string{
		blank:   `<!DOCTYPE html><html><body></body></html>`,
		loads:   `<!DOCTYPE html><html><body><p>x</p><img src="http://reprobench.invalid/x.png"></body></html>`,
		refused: `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'"></head><body><p>x</p><img src="http://reprobench.invalid/x.png"></body></html>`,
	} {
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if n := colors(render(t, bin, blank, 400, 300, false).shot, 64); n != 1 {
		t.Errorf("control: a blank page's screenshot has %d colors, want 1", n)
	}
	if got := render(t, bin, loads, 400, 300, false); len(got.loads) == 0 {
		t.Errorf("control: a page with an external image made no network request in the NetLog")
	}
	if p := consoleMessage.FindAllString(render(t, bin, refused, 400, 300, false).stderr, -1); len(p) == 0 {
		t.Errorf("control: a load refused by the Content-Security-Policy left no console message")
	}
}

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}
