// Package chromium starts Debian's headless chromium for browser tests and
// drives it with chromedp: the board page's (cmd/sabotd) and the pit
// console's (cmd/sabot).
//
// The program is looked up with testenv.NeedProgram: the test skips
// without it on a developer machine and fails under CI=true.
//
//	ctx := chromium.New(t, 1920, 1080)             // a tab, the browser started
//	chromium.Run(t, ctx, "load", chromedp.Navigate(url))
//	n := chromium.Eval[float64](t, ctx, `2 + 2`)
//
// The browser is stopped when the test ends.
package chromium

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sabot-table/sabot/drivers/testenv"
)

// Timeout bounds each Run and Eval: generous, as the tests share a
// loaded machine.
const Timeout = 30 * time.Second

// New starts headless chromium with an empty profile (in the test's
// temporary directory) and a window of width×height CSS pixels, and
// returns a tab's context. There is no sandbox (the tests run as root), no
// GPU, no network of the browser's own (updates, sync), no throttling of a
// tab nobody looks at, and no reliance on the size of /dev/shm (small in
// containers). extra options are added after these (and override them).
// A browser that does not start fails the test.
func New(t testing.TB, width, height int, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	bin := testenv.NeedProgram(t, "chromium")
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(opts, extra...)...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("chromium: %v", err)
	}
	return ctx
}

// Run runs chromedp actions in ctx within Timeout; an error fails the test
// with what (what the actions do).
func Run(t testing.TB, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("browser: %s: %v", what, err)
	}
}

// Eval evaluates the JavaScript expression js in ctx's page within
// Timeout and returns its value as a T; an error (one the value cannot be
// decoded as a T included) fails the test.
func Eval[T any](t testing.TB, ctx context.Context, js string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("browser: evaluate %.80s: %v", js, err)
	}
	return v
}
