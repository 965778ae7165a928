package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"tracker/internal/svgchart/svgcharttest"
	"tracker/store/storetest"
	"tracker/worker/workertest"
)

// TestDocsPageRendersInChromium opens /docs of the running binary in
// headless Chromium: Redoc (the bundle embedded in api/docsui) fetches
// /api/v1/openapi.json and renders it, so the page lists the document's
// operations by their summaries, and nothing went wrong on the way — no
// console error, no uncaught exception, no failed load or CSP violation
// reported by the browser.
func TestDocsPageRendersInChromium(t *testing.T) {
	chromium := svgcharttest.Chromium(t) // skips, saying why, before starting anything (fails in CI)
	_, url := storetest.NewWithURL(t)
	srv := workertest.Start(t)
	s := newStack(t, url, srv, nil)
	s.run("api")

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()))
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	var mu sync.Mutex
	var problems []string
	report := func(ev any) { // runs on the tab's reader: only records
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range ev.Args {
					if len(a.Value) > 0 {
						args = append(args, string(a.Value))
					} else {
						args = append(args, a.Description)
					}
				}
				problems = append(problems, "console."+string(ev.Type)+": "+strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			problems = append(problems, fmt.Sprintf("exception at %s:%d: %s", d.URL, d.LineNumber, msg))
		case *cdplog.EventEntryAdded:
			// Redoc's sidebar shows Redocly's logo from their CDN (no option
			// turns it off); offline the load fails and Redoc hides the <img>.
			// That one failed load is expected; any other is a problem.
			if ev.Entry.Level == cdplog.EntryLevelError && !strings.HasPrefix(ev.Entry.URL, "https://cdn.redoc.ly/redoc/logo-mini") {
				problems = append(problems, fmt.Sprintf("browser log (%s): %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL))
			}
		}
	}
	bctx, cancelBrowser := chromedp.NewContext(actx, chromedp.WithListener(report))
	defer cancelBrowser()

	// Redoc renders the document (the info block and a menu of its tags);
	// opening a tag in the menu lists its operations by their summaries.
	// show(tag, summary) clicks the tag's menu entry once and waits until the
	// summary is in the DOM.
	show := func(tag, summary string) chromedp.Action[chromedp.Void] {
		return chromedp.Poll[chromedp.Void](fmt.Sprintf(`((tag, summary) => {
			if (!document.body) return false;
			if (document.body.textContent.includes(summary)) return true;
			window.__opened = window.__opened || {};
			if (window.__opened[tag]) return false;
			const entry = [...document.querySelectorAll("nav *, aside *, [data-component-name] *")]
				.find(e => e.children.length === 0 && e.textContent.trim() === tag);
			if (entry) { window.__opened[tag] = true; entry.click(); }
			return false;
		})(%q, %q)`, tag, summary), chromedp.WithPollingTimeout(60*time.Second))
	}
	err := chromedp.Do(bctx,
		chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(s.BaseURL+"/docs"),
		// The document is fetched and rendered: its title is on the page.
		chromedp.Poll[chromedp.Void](`!!document.body && document.body.textContent.includes("Tracker API")`,
			chromedp.WithPollingTimeout(60*time.Second)),
		show("Tickets", "Create ticket"),
		show("Tickets", "List project tickets"),
		show("Attachments", "Presign attachment"),
		show("Accounts", "Log in"),
	)
	var text, title string
	if err != nil { // what did render, to tell why
		text, _ = chromedp.Run(bctx, chromedp.Evaluate[string](`document.body ? document.body.innerText.slice(0, 1500) : "(no body)"`))
		err = fmt.Errorf("%w; the page shows: %q", err, text)
	}
	if err == nil {
		text, err = chromedp.Run(bctx, chromedp.Evaluate[string](`document.body.textContent`))
	}
	if err == nil {
		title, err = chromedp.Run(bctx, chromedp.Title())
	}
	mu.Lock()
	defer mu.Unlock()
	if err != nil {
		t.Fatalf("/docs did not render the operations: %v\nbrowser problems: %s", err, strings.Join(problems, "\n  "))
	}
	if title != "Tracker API reference" {
		t.Errorf("title %q", title)
	}
	// The info block of the document is rendered too (not an error page).
	if strings.Contains(text, "Something went wrong") {
		t.Errorf("Redoc rendered its error page")
	}
	if len(problems) > 0 {
		t.Errorf("the browser reported problems:\n  %s", strings.Join(problems, "\n  "))
	}
}
