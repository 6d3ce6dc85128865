package fwproto

// CRC16 returns the CRC-16/CCITT-FALSE of p: polynomial 0x1021, initial
// value 0xFFFF, no reflection, no final XOR. Its check value (the CRC of the
// ASCII bytes "123456789") is 0x29B1. Frames carry it little-endian.
func CRC16(p []byte) uint16 { return crc16Update(0xFFFF, p) }

var crc16Table = func() (t [256]uint16) {
	for i := range t {
		c := uint16(i) << 8
		for range 8 {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x1021
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return t
}()

func crc16Update(crc uint16, p []byte) uint16 {
	for _, b := range p {
		crc = crc<<8 ^ crc16Table[byte(crc>>8)^b]
	}
	return crc
}
