package svgcharttest

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/png"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Chromium is the headless browser the rendering tests use:
// $TRACKER_CHROMIUM (deploy/dev/test.sh sets it after installing Debian's
// chromium when missing; then a missing browser is a failure), else
// /usr/bin/chromium or the first of the usual names on PATH. Without any,
// the test fails in CI ($CI set) and is skipped elsewhere, saying how to
// install one.
func Chromium(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("TRACKER_CHROMIUM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("TRACKER_CHROMIUM=%s: %v", p, err)
		}
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no Chromium in CI: install it (apt-get install -y chromium; deploy/dev/test.sh does) or set TRACKER_CHROMIUM")
	}
	t.Skip("no Chromium: install it (apt-get install -y chromium; deploy/dev/test.sh does) to render charts in a browser")
	return ""
}

// RenderPNG opens svg in headless Chromium the way a page embeds a chart
// (an <img> of the image/svg+xml document, so no script of it could run),
// and returns a screenshot of exactly width×height CSS pixels at scale 1.
func RenderPNG(t testing.TB, svg []byte, width, height int) image.Image {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(Chromium(t)),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()))
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()

	page := `<!doctype html><html><body style="margin:0;background:#fff">` +
		`<img id="chart" style="display:block" src="data:image/svg+xml;base64,` + base64.StdEncoding.EncodeToString(svg) + `">` +
		`</body></html>`
	err := chromedp.Do(bctx,
		chromedp.EmulateViewport(int64(width), int64(height)),
		chromedp.Navigate("data:text/html;base64,"+base64.StdEncoding.EncodeToString([]byte(page))),
		chromedp.Poll[chromedp.Void](`(() => { const i = document.getElementById("chart"); return i.complete && i.naturalWidth > 0; })()`,
			chromedp.WithPollingTimeout(30*time.Second)),
	)
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	shot, err := chromedp.Run(bctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("chromium screenshot: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	return img
}
