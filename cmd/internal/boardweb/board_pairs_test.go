package boardweb

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/sabot-table/sabot/drivers/testenv/chromium"
)

// On the big road a tie's slash (the cell's ::after) must not hide the
// cell's pair dots: with the board's own stylesheet, in a real browser,
// the point at the middle of each dot is the dot, in a cell with one tie
// and in one with several (the count drawn). Before, the slash was drawn
// over the banker-pair dot.
func TestBoardTieKeepsPairDots(t *testing.T) {
	t.Parallel()
	css, err := os.ReadFile("web/board.css")
	if err != nil {
		t.Fatal(err)
	}
	cell := func(id, cls, ties string) string {
		return fmt.Sprintf(`<div class="c %s" id=%q data-w="B" data-v="B" data-ties=%q style="grid-row:1;grid-column:%s"><span class="pairs"><i class="bp"></i><i class="pp"></i></span></div>`,
			cls, id, ties, map[string]string{"one": "1", "three": "2"}[id])
	}
	// Hit testing follows the paint order; the dots take no clicks on the
	// board (pointer-events: none), so the test page lets them be hit.
	page := `<!doctype html><html><head><style>` + string(css) + `
.pairs, .pairs i { pointer-events: auto !important; }</style></head><body>
<section id="big" class="road"><div class="grid big" id="g-big" style="--cell:120px"><div class="cells" style="width:241px">` +
		cell("one", "tie tie1", "1") + cell("three", "tie", "3") + `</div></div></section></body></html>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(page))
	}))
	defer srv.Close()
	ctx := chromium.New(t, 800, 600)
	chromium.Run(t, ctx, "load", chromedp.Navigate(srv.URL))
	for _, id := range []string{"one", "three"} {
		for _, dot := range []string{"bp", "pp"} {
			js := fmt.Sprintf(`(() => { const i = document.querySelector('#%s i.%s'); const r = i.getBoundingClientRect();
				return r.width > 0 && document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) === i; })()`, id, dot)
			if !chromium.Eval[bool](t, ctx, js) {
				t.Errorf("the %s dot of the cell with %s tie(s) is hidden (the tie's slash is drawn over it)", dot, id)
			}
		}
	}
}
