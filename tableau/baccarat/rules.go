package baccarat

// NoThirdCard is the playerThird argument of BankerDraws when the player
// stood on two cards.
const NoThirdCard = -1

// PlayerDraws reports whether the player draws a third card on a two-card
// total (0–9), when neither hand is a natural: 0–5 draws, 6–7 stands (8–9
// are naturals and never draw). It reads PuntoBanco.
func PlayerDraws(playerTotal int) bool {
	return PuntoBanco.PunterRule(playerTotal) == MustDraw
}

// BankerDraws reports whether the banker draws a third card on a two-card
// total bankerTotal (0–9), given the value (0–9) of the player's third card,
// or NoThirdCard if the player stood. Out-of-range arguments give false.
// It reads PuntoBanco (see there for the rule and its source).
func BankerDraws(bankerTotal, playerThird int) bool {
	return PuntoBanco.BankerRule(bankerTotal, playerThird) == MustDraw
}
