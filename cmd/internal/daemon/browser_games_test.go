package daemon

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sabot-table/sabot/drivers/testenv/chromium"
)

// dealLines writes transcript tokens to a "lines" shoe.
func dealLines(shoe io.Writer, toks string) {
	for _, tok := range strings.Fields(toks) {
		fmt.Fprintf(shoe, "%s\r\n", tok)
	}
}

// TestBoardBrowserBanque: a banque table's board in chromium shows the
// right tableau, the left one and the banker, each with its cards and
// total, the tableau awaited while the coup is dealt, and each tableau's
// result against the banker; it shows no roads (banque has none: each
// tableau is settled on its own). Screenshot board-banque-1920x1080.png.
func TestBoardBrowserBanque(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	ctx := newBrowser(t)
	m, shoe := bootBoardDaemon(t, `game = "banque"`, "")
	chromium.Run(t, ctx, "load the board", chromedp.EmulateViewport(1920, 1080), chromedp.Navigate("http://"+m.d.http.addr+"/"))
	waitPage(t, ctx, "the first state", 10*time.Second, `document.getElementById('table').textContent === 'T-9'`)
	text := func(sel string) string {
		return chromium.Eval[string](t, ctx, fmt.Sprintf(`document.querySelector(%q).textContent`, sel))
	}
	// Right 5S KC (5: his option), left 2H AC (3), banker 9D 8H (7).
	dealLines(shoe, "shoe 2C 8D 4S | 5S 2H 9D KC AC 8H")
	waitPage(t, ctx, "the six cards", 10*time.Second, `document.querySelectorAll('#coup [data-card]').length === 6`)
	waitPage(t, ctx, "the right tableau awaited", 10*time.Second, `document.getElementById('hand-player').classList.contains('draws')`)
	for sel, want := range map[string]string{
		"#hand-player .label": "RIGHT", "#hand-left .label": "LEFT", "#hand-banker .label": "BANKER",
		"#total-player": "5", "#total-left": "3", "#total-banker": "7", "#result": "RIGHT draws",
	} {
		if got := text(sel); got != want {
			t.Errorf("%s shows %q, want %q", sel, got, want)
		}
	}
	if !chromium.Eval[bool](t, ctx, `document.getElementById('coup').classList.contains('banque') && !!document.getElementById('hand-left')`) {
		t.Error("the left tableau is not shown")
	}
	// Right stands; left must draw (4D: 7); the banker draws (6H: 3).
	dealLines(shoe, "stand 4D")
	waitPage(t, ctx, "the left tableau's card", 10*time.Second, `document.getElementById('total-left').textContent === '7'`)
	if got := text("#result"); got != "BANKER draws" {
		t.Errorf("after the left's card the result shows %q", got)
	}
	dealLines(shoe, "6H |")
	waitPage(t, ctx, "the results", 10*time.Second, `document.getElementById('result').classList.contains('sides')`)
	for sel, want := range map[string]string{
		"#cards-player": "5♠K♣", "#cards-left": "2♥A♣4♦", "#cards-banker": "9♦8♥6♥",
		"#total-banker": "3", "#result": "RIGHT WINSLEFT WINS",
	} {
		if got := text(sel); got != want {
			t.Errorf("%s shows %q, want %q", sel, got, want)
		}
	}
	if !chromium.Eval[bool](t, ctx, `['hand-player','hand-left'].every(id => document.getElementById(id).classList.contains('won')) && !document.getElementById('hand-banker').classList.contains('won')`) {
		t.Error("the tableaux that won are not marked")
	}
	// No roads: the road panels are not drawn; the statistics say why.
	if !chromium.Eval[bool](t, ctx, `['bead','big','beb','sr','cp','ask'].every(id => getComputedStyle(document.getElementById(id)).display === 'none')`) {
		t.Error("road panels shown for banque")
	}
	if got := text(`#stats-list [data-k="no_roads"]`); !strings.Contains(got, "no roads") {
		t.Errorf("statistics show %q", got)
	}
	screenshot(t, ctx, artifactsDir(t), "board-banque-1920x1080.png", 1920, 1080)

	// The next coup: the left tableau is cleared, then dealt again.
	dealLines(shoe, "3C 6D 8S 2C AH JS")
	waitPage(t, ctx, "coup 2", 10*time.Second, `document.querySelectorAll('#cards-left [data-card]').length === 2 && document.getElementById('total-left').textContent === '7'`)
}

// TestBoardBrowserCheminDeFer: a chemin de fer table's board calls the
// player hand the punter, and its coups enter the roads as punto banco's
// do (player, banker, tie).
func TestBoardBrowserCheminDeFer(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	ctx := newBrowser(t)
	m, shoe := bootBoardDaemon(t, `game = "chemin-de-fer"`, "")
	chromium.Run(t, ctx, "load the board", chromedp.EmulateViewport(1920, 1080), chromedp.Navigate("http://"+m.d.http.addr+"/"))
	waitPage(t, ctx, "the first state", 10*time.Second, `document.getElementById('table').textContent === 'T-9'`)
	// Punter 7 beats banker 6; punter 5 stands, banker 2C KH draws 5S: 7
	// beats 5; punter 7, banker 7: tie.
	dealLines(shoe, "shoe 2C 8D 4S | 7H 2C KD 4S | 4D 2C AS KH stand 5S | 7S 7H KC KD |")
	waitPage(t, ctx, "3 coups on the bead plate", 10*time.Second, `document.querySelectorAll('#g-bead [data-v]').length === 3`)
	beads := chromium.Eval[string](t, ctx, `[...document.querySelectorAll('#g-bead [data-v]')].map(e => e.dataset.r + ',' + e.dataset.c + ',' + e.dataset.v).join(' ')`)
	if beads != "0,0,P 1,0,B 2,0,T" {
		t.Errorf("bead plate %q", beads)
	}
	for sel, want := range map[string]string{
		"#hand-player .label": "PUNTER", "#hand-banker .label": "BANKER", "#result": "TIE",
		`#stats-list [data-k="player"]`: "1", `#stats-list [data-k="banker"]`: "1", `#stats-list [data-k="tie"]`: "1",
	} {
		if got := chromium.Eval[string](t, ctx, fmt.Sprintf(`document.querySelector(%q).textContent`, sel)); got != want {
			t.Errorf("%s shows %q, want %q", sel, got, want)
		}
	}
	if !chromium.Eval[bool](t, ctx, `!document.getElementById('hand-left') && getComputedStyle(document.getElementById('bead')).display !== 'none'`) {
		t.Error("chemin de fer board: a left tableau shown or the bead plate hidden")
	}
	dealLines(shoe, "4D 2C AS KH")
	waitPage(t, ctx, "the punter's option", 10*time.Second, `document.getElementById('result').textContent === 'PUNTER draws'`)
}
