package tableau

// NoThirdCard is the playerThird argument of BankerDraws when the player
// stood on two cards.
const NoThirdCard = -1

// PlayerDraws reports whether the player draws a third card on a two-card
// total (0–9), when neither hand is a natural: 0–5 draws, 6–7 stands (8–9
// are naturals and never draw).
//
// Source: the punto banco tableau as printed on the layout of Nevada and
// European casinos (player "draws on 0–5, stands on 6–7").
func PlayerDraws(playerTotal int) bool {
	return playerTotal >= 0 && playerTotal <= 5
}

// bankerDraws[bankerTotal][playerThird+1] is the banker's column of the
// tableau. Column 0 is "player stood"; columns 1..10 are the value (0–9) of
// the player's third card. Built in init from the rules as the casinos
// print them, row by banker total; the tests check every cell against the
// table written the other way round (by the player's third card).
var bankerDraws [10][11]bool

func init() {
	for b := 0; b <= 9; b++ {
		// Player stood: banker draws on 0–5, stands on 6–7.
		bankerDraws[b][0] = b <= 5
		for v := 0; v <= 9; v++ {
			var draw bool
			switch b {
			case 0, 1, 2:
				draw = true // always draws
			case 3:
				draw = v != 8 // draws unless the player's third card was an 8
			case 4:
				draw = v >= 2 && v <= 7
			case 5:
				draw = v >= 4 && v <= 7
			case 6:
				draw = v == 6 || v == 7
			default: // 7 stands; 8 and 9 are naturals
				draw = false
			}
			bankerDraws[b][v+1] = draw
		}
	}
}

// BankerDraws reports whether the banker draws a third card on a two-card
// total bankerTotal (0–9), given the value (0–9) of the player's third card,
// or NoThirdCard if the player stood. Out-of-range arguments give false.
//
// The rule (the tableau): when the player stood, the banker draws on 0–5
// and stands on 6–7. When the player drew, by the value of the player's
// third card: banker 0–2 always draws; 3 draws unless it was an 8; 4 draws
// on 2–7; 5 draws on 4–7; 6 draws on 6–7; 7 stands. Naturals (8–9) never
// draw.
func BankerDraws(bankerTotal, playerThird int) bool {
	if bankerTotal < 0 || bankerTotal > 9 || playerThird < NoThirdCard || playerThird > 9 {
		return false
	}
	return bankerDraws[bankerTotal][playerThird+1]
}
