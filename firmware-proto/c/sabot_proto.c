/* sabot_proto.c - see sabot_proto.h. C99, no dynamic memory. */
#include "sabot_proto.h"

uint16_t sp_crc16(const uint8_t *p, size_t n)
{
    uint16_t crc = 0xFFFFu;
    size_t i;
    int b;
    for (i = 0; i < n; i++) {
        crc ^= (uint16_t)((uint16_t)p[i] << 8);
        for (b = 0; b < 8; b++) {
            if (crc & 0x8000u) {
                crc = (uint16_t)((crc << 1) ^ 0x1021u);
            } else {
                crc = (uint16_t)(crc << 1);
            }
        }
    }
    return crc;
}

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}

uint16_t sp_get_u16(const uint8_t *p) { return (uint16_t)(p[0] | (uint16_t)p[1] << 8); }
uint32_t sp_get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
uint64_t sp_get_u64(const uint8_t *p) { return (uint64_t)sp_get_u32(p) | (uint64_t)sp_get_u32(p + 4) << 32; }

size_t sp_encode(const sp_frame *f, uint8_t *out, size_t cap)
{
    uint8_t raw[SP_MAX_FRAME];
    size_t n, i, code_at, o;
    uint8_t code;
    uint16_t crc;

    if (f->len > SP_MAX_PAYLOAD) {
        return 0;
    }
    n = SP_HEADER_LEN + f->len + SP_CRC_LEN;
    if (cap < n + 2u) {
        return 0;
    }
    raw[0] = SP_VERSION;
    raw[1] = f->type;
    put32(raw + 2, f->boot);
    put32(raw + 6, f->seq);
    raw[10] = f->len;
    memcpy(raw + SP_HEADER_LEN, f->payload, f->len);
    crc = sp_crc16(raw, SP_HEADER_LEN + f->len);
    put16(raw + SP_HEADER_LEN + f->len, crc);

    /* COBS: frames are < 254 bytes, so no 0xFF groups occur. */
    code_at = 0;
    o = 1;
    code = 1;
    for (i = 0; i < n; i++) {
        if (raw[i] == 0) {
            out[code_at] = code;
            code_at = o++;
            code = 1;
        } else {
            out[o++] = raw[i];
            code++;
        }
    }
    out[code_at] = code;
    out[o++] = 0;
    return o;
}

void sp_decoder_init(sp_decoder *d)
{
    d->n = 0;
    d->overflow = 0;
}

static int known_type(uint8_t t)
{
    return (t >= SP_HELLO && t <= SP_DEALER) || t == SP_ACK || t == SP_NAK ||
           (t >= SP_GATE && t <= SP_TIME_SYNC);
}

/* Decodes the frame held in d->enc[0..n). */
static int finish(sp_decoder *d, sp_frame *out)
{
    size_t i = 0, n = 0, len = d->n, plen, actual;
    uint16_t got, want;

    while (i < len) {
        size_t code = d->enc[i], j;
        if (code == 0 || i + code > len) {
            return SP_ERR_COBS;
        }
        i++;
        for (j = 1; j < code; j++) {
            d->raw[n++] = d->enc[i++];
        }
        if (code != 0xFF && i < len) {
            d->raw[n++] = 0;
        }
    }
    if (n < SP_HEADER_LEN + SP_CRC_LEN) {
        return SP_ERR_TRUNCATED;
    }
    got = sp_get_u16(d->raw + n - SP_CRC_LEN);
    want = sp_crc16(d->raw, n - SP_CRC_LEN);
    if (got != want) {
        return SP_ERR_CRC;
    }
    if (d->raw[0] != SP_VERSION) {
        return SP_ERR_VERSION;
    }
    out->type = d->raw[1];
    out->boot = sp_get_u32(d->raw + 2);
    out->seq = sp_get_u32(d->raw + 6);
    plen = d->raw[10];
    actual = n - SP_HEADER_LEN - SP_CRC_LEN;
    out->len = 0;
    if (plen > actual) {
        return SP_ERR_TRUNCATED;
    }
    if (plen < actual) {
        return SP_ERR_LENGTH;
    }
    out->len = (uint8_t)plen;
    memcpy(out->payload, d->raw + SP_HEADER_LEN, plen);
    if (!known_type(out->type)) {
        return SP_ERR_UNKNOWN_TYPE;
    }
    return SP_FRAME;
}

int sp_decoder_push(sp_decoder *d, uint8_t byte, sp_frame *out)
{
    int r;
    if (byte != 0) {
        if (d->n < SP_MAX_ENCODED) {
            d->enc[d->n++] = byte;
        } else {
            d->overflow = 1;
        }
        return SP_NONE;
    }
    if (d->overflow) {
        r = SP_ERR_OVERSIZE;
    } else if (d->n == 0) {
        r = SP_NONE; /* empty frame: skipped */
    } else {
        r = finish(d, out);
    }
    d->n = 0;
    d->overflow = 0;
    return r;
}

/* Reads a length-prefixed string at payload offset *at; 0 if it fits. */
static int skip_str(const sp_frame *f, size_t *at, size_t max)
{
    size_t l;
    if (*at + 1u > f->len) {
        return -1;
    }
    l = f->payload[*at];
    if (l > max || *at + 1u + l > f->len) {
        return -1;
    }
    *at += 1u + l;
    return 0;
}

/* What sp_validate checks of each type's payload: at least fixed bytes,
   then length-prefixed strings of at most max[i] bytes each (0 ends the
   list); sp_validate adds CARD's rank and suit and GATE's lock byte. */
struct payload_shape {
    uint8_t type, fixed, max[3];
};

static const struct payload_shape shapes[] = {
    {SP_HELLO, 15, {SP_MAX_STRING, SP_MAX_STRING, SP_MAX_STRING}},
    {SP_CARD, 7, {SP_MAX_UID, 0, 0}},
    {SP_CARD_UNREADABLE, 5, {SP_MAX_UID, 0, 0}},
    {SP_BUTTON, 6, {0, 0, 0}},
    {SP_CUT_CARD, 4, {0, 0, 0}},
    {SP_SHOE_STATE, 5, {0, 0, 0}},
    {SP_ALARM, 6, {SP_MAX_ALARM, 0, 0}},
    {SP_HEARTBEAT, 10, {0, 0, 0}},
    {SP_DEALER, 5, {SP_MAX_DEALER, SP_MAX_UID, 0}},
    {SP_ACK, 4, {0, 0, 0}},
    {SP_NAK, 5, {0, 0, 0}},
    {SP_GATE, 1, {0, 0, 0}},
    {SP_INDICATOR, 4, {0, 0, 0}},
    {SP_STATUS_REQUEST, 0, {0, 0, 0}},
    {SP_TIME_SYNC, 8, {0, 0, 0}},
};

int sp_validate(const sp_frame *f)
{
    const uint8_t *p = f->payload;
    const struct payload_shape *s;
    size_t at, k;
    for (s = shapes; s < shapes + sizeof shapes / sizeof shapes[0]; s++) {
        if (s->type != f->type) {
            continue;
        }
        at = s->fixed;
        if (f->len < at) {
            return SP_ERR_PAYLOAD;
        }
        for (k = 0; k < sizeof s->max && s->max[k] != 0; k++) {
            if (skip_str(f, &at, s->max[k])) {
                return SP_ERR_PAYLOAD;
            }
        }
        if (f->type == SP_CARD && (p[0] < 1 || p[0] > 13 || p[1] > SP_SUIT_CLUBS)) {
            return SP_ERR_PAYLOAD;
        }
        if (f->type == SP_GATE && p[0] > 1) {
            return SP_ERR_PAYLOAD;
        }
        return SP_FRAME;
    }
    return SP_ERR_UNKNOWN_TYPE;
}

static void head(sp_frame *f, uint8_t type, uint32_t boot, uint32_t seq)
{
    f->type = type;
    f->boot = boot;
    f->seq = seq;
    f->len = 0;
}

static void add_str(sp_frame *f, const uint8_t *s, size_t n, size_t max)
{
    if (n > max) {
        n = max;
    }
    f->payload[f->len++] = (uint8_t)n;
    if (n > 0) {
        memcpy(f->payload + f->len, s, n);
    }
    f->len = (uint8_t)(f->len + n);
}

static void add_cstr(sp_frame *f, const char *s, size_t max)
{
    add_str(f, (const uint8_t *)s, s ? strlen(s) : 0u, max);
}

void sp_hello(sp_frame *f, uint32_t boot, uint32_t seq, uint8_t minor, uint16_t caps,
              uint32_t last_acked, uint32_t prev_boot, uint32_t prev_last_seq,
              const char *model, const char *serial, const char *firmware)
{
    head(f, SP_HELLO, boot, seq);
    f->payload[0] = minor;
    put16(f->payload + 1, caps);
    put32(f->payload + 3, last_acked);
    put32(f->payload + 7, prev_boot);
    put32(f->payload + 11, prev_last_seq);
    f->len = 15;
    add_cstr(f, model, SP_MAX_STRING);
    add_cstr(f, serial, SP_MAX_STRING);
    add_cstr(f, firmware, SP_MAX_STRING);
}

void sp_card(sp_frame *f, uint32_t boot, uint32_t seq, uint8_t rank, uint8_t suit,
             uint8_t quality, uint32_t clock_ms, const uint8_t *uid, uint8_t uid_len)
{
    head(f, SP_CARD, boot, seq);
    f->payload[0] = rank;
    f->payload[1] = suit;
    f->payload[2] = quality;
    put32(f->payload + 3, clock_ms);
    f->len = 7;
    add_str(f, uid, uid_len, SP_MAX_UID);
}

void sp_card_unreadable(sp_frame *f, uint32_t boot, uint32_t seq, uint8_t reason,
                        uint32_t clock_ms, const uint8_t *uid, uint8_t uid_len)
{
    head(f, SP_CARD_UNREADABLE, boot, seq);
    f->payload[0] = reason;
    put32(f->payload + 1, clock_ms);
    f->len = 5;
    add_str(f, uid, uid_len, SP_MAX_UID);
}

void sp_button(sp_frame *f, uint32_t boot, uint32_t seq, uint8_t button, uint8_t position, uint32_t clock_ms)
{
    head(f, SP_BUTTON, boot, seq);
    f->payload[0] = button;
    f->payload[1] = position;
    put32(f->payload + 2, clock_ms);
    f->len = 6;
}

void sp_cut_card(sp_frame *f, uint32_t boot, uint32_t seq, uint32_t clock_ms)
{
    head(f, SP_CUT_CARD, boot, seq);
    put32(f->payload, clock_ms);
    f->len = 4;
}

void sp_shoe_state(sp_frame *f, uint32_t boot, uint32_t seq, uint8_t flags, uint32_t clock_ms)
{
    head(f, SP_SHOE_STATE, boot, seq);
    f->payload[0] = flags;
    put32(f->payload + 1, clock_ms);
    f->len = 5;
}

void sp_alarm(sp_frame *f, uint32_t boot, uint32_t seq, uint16_t code, uint32_t clock_ms, const char *text)
{
    head(f, SP_ALARM, boot, seq);
    put16(f->payload, code);
    put32(f->payload + 2, clock_ms);
    f->len = 6;
    add_cstr(f, text, SP_MAX_ALARM);
}

void sp_dealer(sp_frame *f, uint32_t boot, uint32_t seq, uint8_t action, uint32_t clock_ms,
               const char *id, const uint8_t *badge, uint8_t badge_len)
{
    head(f, SP_DEALER, boot, seq);
    f->payload[0] = action;
    put32(f->payload + 1, clock_ms);
    f->len = 5;
    add_cstr(f, id, SP_MAX_DEALER);
    add_str(f, badge, badge_len, SP_MAX_UID);
}

void sp_heartbeat(sp_frame *f, uint32_t boot, uint32_t clock_ms, uint32_t last_seq, uint8_t unacked, uint8_t flags)
{
    head(f, SP_HEARTBEAT, boot, 0);
    put32(f->payload, clock_ms);
    put32(f->payload + 4, last_seq);
    f->payload[8] = unacked;
    f->payload[9] = flags;
    f->len = 10;
}

void sp_ack(sp_frame *f, uint32_t boot, uint32_t acked_seq)
{
    head(f, SP_ACK, boot, 0);
    put32(f->payload, acked_seq);
    f->len = 4;
}

void sp_nak(sp_frame *f, uint32_t boot, uint32_t seq, uint8_t reason)
{
    head(f, SP_NAK, boot, 0);
    put32(f->payload, seq);
    f->payload[4] = reason;
    f->len = 5;
}
