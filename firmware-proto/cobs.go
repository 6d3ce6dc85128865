package fwproto

// appendCOBS appends the COBS (Consistent Overhead Byte Stuffing) encoding
// of src to dst. The result contains no 0x00 byte; it is len(src)+1 bytes
// long for len(src) < 254 (frames are always shorter, so the overhead is
// exactly one byte). The delimiter is not appended.
func appendCOBS(dst, src []byte) []byte {
	codeAt := len(dst)
	dst = append(dst, 0)
	code := byte(1)
	for _, b := range src {
		if b == 0 {
			dst[codeAt] = code
			codeAt = len(dst)
			dst = append(dst, 0)
			code = 1
			continue
		}
		dst = append(dst, b)
		code++
		if code == 0xFF {
			dst[codeAt] = code
			codeAt = len(dst)
			dst = append(dst, 0)
			code = 1
		}
	}
	dst[codeAt] = code
	return dst
}

// decodeCOBS decodes the COBS block src (without delimiter) into dst, which
// must be at least len(src) bytes long, and returns the decoded length. ok
// is false if a code byte points past the end of src or src contains 0x00.
func decodeCOBS(dst, src []byte) (n int, ok bool) {
	i := 0
	for i < len(src) {
		code := int(src[i])
		if code == 0 || i+code > len(src) {
			return 0, false
		}
		i++
		for j := 1; j < code; j++ {
			b := src[i]
			if b == 0 {
				return 0, false
			}
			dst[n] = b
			n++
			i++
		}
		if code != 0xFF && i < len(src) {
			dst[n] = 0
			n++
		}
	}
	return n, true
}
