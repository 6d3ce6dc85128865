/*
 * sabot_proto.h - C99 codec for the Sabot shoe protocol (PROTOCOL.md).
 *
 * For shoe firmware: no dynamic memory, no library beyond <stdint.h> and
 * <string.h>, no global state. Frame = COBS(header | payload | CRC) + 0x00.
 * Header: version (1), type, boot id (u32 LE), sequence (u32 LE), payload
 * length. CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF), little-endian,
 * over header and payload; check value of "123456789" is 0x29B1.
 *
 * Typical use in firmware:
 *   sending:   sp_frame f; sp_card(&f, boot, ++seq, 1, SP_SUIT_SPADES, 100, ms, 0, 0);
 *              n = sp_encode(&f, wire, sizeof wire); uart_write(wire, n);
 *              (keep f in the ring buffer until acknowledged)
 *   receiving: sp_decoder d; sp_decoder_init(&d);
 *              for each byte b from the UART:
 *                r = sp_decoder_push(&d, b, &f);
 *                if (r == SP_FRAME) handle(&f); else if (r < 0) count error;
 */
#ifndef SABOT_PROTO_H
#define SABOT_PROTO_H

#include <stdint.h>
#include <string.h>

#define SP_VERSION      1u
#define SP_HEADER_LEN   11u
#define SP_CRC_LEN      2u
#define SP_MAX_PAYLOAD  128u
#define SP_MAX_FRAME    (SP_HEADER_LEN + SP_MAX_PAYLOAD + SP_CRC_LEN) /* 141 */
#define SP_MAX_ENCODED  (SP_MAX_FRAME + 1u)                           /* 142, COBS, no delimiter */
#define SP_MAX_WIRE     (SP_MAX_ENCODED + 1u)                         /* 143, with delimiter */
#define SP_MAX_UID      16u
#define SP_MAX_STRING   32u
#define SP_MAX_ALARM    64u
#define SP_MAX_DEALER   32u  /* DEALER id, bytes */
#define SP_MINOR        1u   /* protocol minor version for HELLO: 1 added DEALER */

/* Message types. */
enum {
    SP_HELLO = 0x01, SP_CARD = 0x02, SP_CARD_UNREADABLE = 0x03, SP_BUTTON = 0x04,
    SP_CUT_CARD = 0x05, SP_SHOE_STATE = 0x06, SP_ALARM = 0x07, SP_HEARTBEAT = 0x08,
    SP_DEALER = 0x09, /* minor version 1 */
    SP_ACK = 0x10, SP_NAK = 0x11,
    SP_GATE = 0x20, SP_INDICATOR = 0x21, SP_STATUS_REQUEST = 0x22, SP_TIME_SYNC = 0x23
};

/* Suits (CARD). */
enum { SP_SUIT_UNKNOWN = 0, SP_SUIT_SPADES = 1, SP_SUIT_HEARTS = 2, SP_SUIT_DIAMONDS = 3, SP_SUIT_CLUBS = 4 };
/* Buttons (BUTTON). */
enum { SP_BUTTON_COUP = 1, SP_BUTTON_BURN = 2, SP_BUTTON_SUPERVISOR = 3, SP_BUTTON_STAND = 4 };
/* DEALER actions. */
enum { SP_DEALER_SIGN_OUT = 0, SP_DEALER_SIGN_IN = 1 };
/* NAK reasons. */
enum { SP_NAK_GAP = 1, SP_NAK_BAD_FRAME = 2, SP_NAK_UNKNOWN_TYPE = 3, SP_NAK_BAD_PAYLOAD = 4, SP_NAK_BUSY = 5 };
/* SHOE_STATE / HEARTBEAT flags. */
enum { SP_SHOE_LOADED = 1, SP_SHOE_COVER_OPEN = 2, SP_SHOE_JAM = 4, SP_SHOE_GATE_LOCKED = 8, SP_SHOE_NEW = 16 };
/* HELLO capabilities. */
enum { SP_CAP_SUIT = 1, SP_CAP_UID = 2, SP_CAP_GATE = 4, SP_CAP_BUTTONS = 8, SP_CAP_DISPLAY = 16,
       SP_CAP_CUT_CARD = 32, SP_CAP_PERSIST = 64, SP_CAP_TIME_SYNC = 128,
       SP_CAP_DEALER = 256 /* reads dealer badges, sends DEALER (minor 1) */ };

/* Results of sp_decoder_push and sp_validate. */
enum {
    SP_NONE = 0,              /* need more bytes */
    SP_FRAME = 1,             /* a frame is complete in *out */
    SP_ERR_CRC = -1,          /* CRC mismatch */
    SP_ERR_OVERSIZE = -2,     /* more than SP_MAX_ENCODED bytes without a delimiter */
    SP_ERR_TRUNCATED = -3,    /* shorter than header + CRC, or length field too large */
    SP_ERR_COBS = -4,         /* invalid COBS block */
    SP_ERR_LENGTH = -5,       /* length field smaller than the payload */
    SP_ERR_VERSION = -6,      /* version byte is not SP_VERSION (CRC was good) */
    SP_ERR_UNKNOWN_TYPE = -7, /* type unknown; header fields in *out are valid */
    SP_ERR_PAYLOAD = -8       /* sp_validate: payload too short or a field out of range */
};

/* One frame, decoded or to encode. */
typedef struct {
    uint8_t  type;
    uint32_t boot;
    uint32_t seq;
    uint8_t  len;                      /* payload length, 0..SP_MAX_PAYLOAD */
    uint8_t  payload[SP_MAX_PAYLOAD];
} sp_frame;

/* Streaming decoder state (about 290 bytes). */
typedef struct {
    uint8_t  enc[SP_MAX_ENCODED];
    uint8_t  raw[SP_MAX_ENCODED];
    uint16_t n;        /* bytes held */
    uint8_t  overflow; /* more bytes than fit arrived */
} sp_decoder;

/* CRC-16/CCITT-FALSE of p[0..n). */
uint16_t sp_crc16(const uint8_t *p, size_t n);

/* Encodes f into out (cap bytes; SP_MAX_WIRE always suffices), with the
 * trailing 0x00. Returns the number of bytes, or 0 if f->len is too large or
 * cap too small. */
size_t sp_encode(const sp_frame *f, uint8_t *out, size_t cap);

void sp_decoder_init(sp_decoder *d);

/* Feeds one received byte. Returns SP_NONE, SP_FRAME (frame in *out), or a
 * negative SP_ERR_* for a damaged frame (the decoder is already ready for the
 * next one: it resynchronises at every 0x00). For SP_ERR_UNKNOWN_TYPE the
 * header fields of *out are valid (so the firmware can NAK the command). */
int sp_decoder_push(sp_decoder *d, uint8_t byte, sp_frame *out);

/* Checks the payload of a frame of a known type: SP_FRAME if valid, else
 * SP_ERR_PAYLOAD (or SP_ERR_UNKNOWN_TYPE). Bytes after the defined fields
 * are allowed (a newer peer's extensions) and ignored. */
int sp_validate(const sp_frame *f);

/* Builders for the shoe's messages: fill f completely. String and UID
 * arguments may be NULL when their length is 0. Lengths beyond the limits
 * are cut to the limit. */
void sp_hello(sp_frame *f, uint32_t boot, uint32_t seq, uint8_t minor, uint16_t caps,
              uint32_t last_acked, uint32_t prev_boot, uint32_t prev_last_seq,
              const char *model, const char *serial, const char *firmware);
void sp_card(sp_frame *f, uint32_t boot, uint32_t seq, uint8_t rank, uint8_t suit,
             uint8_t quality, uint32_t clock_ms, const uint8_t *uid, uint8_t uid_len);
void sp_card_unreadable(sp_frame *f, uint32_t boot, uint32_t seq, uint8_t reason,
                        uint32_t clock_ms, const uint8_t *uid, uint8_t uid_len);
void sp_button(sp_frame *f, uint32_t boot, uint32_t seq, uint8_t button, uint8_t position, uint32_t clock_ms);
void sp_cut_card(sp_frame *f, uint32_t boot, uint32_t seq, uint32_t clock_ms);
void sp_shoe_state(sp_frame *f, uint32_t boot, uint32_t seq, uint8_t flags, uint32_t clock_ms);
void sp_alarm(sp_frame *f, uint32_t boot, uint32_t seq, uint16_t code, uint32_t clock_ms, const char *text);
/* DEALER: action SP_DEALER_SIGN_IN or SP_DEALER_SIGN_OUT; id the dealer's id
 * as text (may be NULL or "": a sign-out naming no one, or a badge known by
 * its UID only); badge the badge's RFID UID (may be NULL with length 0). */
void sp_dealer(sp_frame *f, uint32_t boot, uint32_t seq, uint8_t action, uint32_t clock_ms,
               const char *id, const uint8_t *badge, uint8_t badge_len);
void sp_heartbeat(sp_frame *f, uint32_t boot, uint32_t clock_ms, uint32_t last_seq, uint8_t unacked, uint8_t flags);
void sp_ack(sp_frame *f, uint32_t boot, uint32_t acked_seq);
void sp_nak(sp_frame *f, uint32_t boot, uint32_t seq, uint8_t reason);

/* Little-endian field access for parsing host commands (after sp_validate):
 * ACK/NAK seq = sp_get_u32(f->payload); NAK reason = f->payload[4];
 * GATE lock = f->payload[0]; INDICATOR lamps, blink = payload[0], [1],
 * beep_ms = sp_get_u16(f->payload + 2); TIME_SYNC unix_ms = sp_get_u64(f->payload). */
uint16_t sp_get_u16(const uint8_t *p);
uint32_t sp_get_u32(const uint8_t *p);
uint64_t sp_get_u64(const uint8_t *p);

#endif
