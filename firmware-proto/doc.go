// Package fwproto is the Sabot shoe wire protocol: the frames a card-reading
// shoe and its host exchange over a serial line, with an encoder, a
// streaming decoder and the message types. PROTOCOL.md in this directory is
// the specification (written for firmware engineers); c/ holds a C99 codec
// for shoe firmware that is tested against the same vectors
// (testdata/vectors.json) as this package.
//
// A frame on the wire is COBS(header ‖ payload ‖ CRC) followed by a 0x00
// delimiter. The header is 11 bytes: version (1), type, boot id (uint32),
// sequence (uint32), payload length; the CRC is CRC-16/CCITT-FALSE,
// little-endian, over header and payload. All integers are little-endian.
//
// Decoding never panics and never gives up on a stream: a damaged frame is
// reported as a *FrameError (errors.Is it with ErrBadCRC, ErrOversize,
// ErrUnknownType, ErrTruncated, ...) and the Decoder resynchronises at the
// next 0x00 delimiter. Steady-state decoding of CARD, BUTTON, ACK and
// HEARTBEAT frames does not allocate.
//
// The package imports only the standard library; the virtual shoe that plays
// the shoe's side of the protocol is in the sim subpackage.
package fwproto
