/*
 * test_vectors.c - runs the C codec over the protocol's test vectors.
 *
 * Usage: test_vectors FILE
 * FILE has one vector per line: "NAME HEX" (the Go test writes it from
 * testdata/vectors.json). All vectors are fed, byte by byte, through one
 * streaming decoder, as one stream. For each line the program prints what
 * the decoder produced for it:
 *   NAME frame TYPE BOOT SEQ PAYLOAD_HEX REENCODED_HEX   (type, boot, seq in decimal)
 *   NAME error CODE                                      (SP_ERR_* name, after sp_validate)
 * and then one line "build NAME HEX" for each message built with the sp_*
 * builders, with the same fields as the vector NAME in vectors.json.
 * The Go test (c_test.go) compares all of it with the Go codec.
 */
#include <stdio.h>
#include <stdlib.h>
#include "sabot_proto.h"

static const char *errname(int r)
{
    switch (r) {
    case SP_ERR_CRC: return "bad-crc";
    case SP_ERR_OVERSIZE: return "oversize";
    case SP_ERR_TRUNCATED: return "truncated";
    case SP_ERR_COBS: return "bad-cobs";
    case SP_ERR_LENGTH: return "bad-length";
    case SP_ERR_VERSION: return "version";
    case SP_ERR_UNKNOWN_TYPE: return "unknown-type";
    case SP_ERR_PAYLOAD: return "bad-payload";
    }
    return "?";
}

static void hex(const uint8_t *p, size_t n)
{
    size_t i;
    if (n == 0) {
        printf("-");
    }
    for (i = 0; i < n; i++) {
        printf("%02x", p[i]);
    }
}

static int nibble(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static void build(const char *name, const sp_frame *f)
{
    uint8_t wire[SP_MAX_WIRE];
    size_t n = sp_encode(f, wire, sizeof wire);
    printf("build %s ", name);
    hex(wire, n);
    printf("\n");
}

int main(int argc, char **argv)
{
    static char line[8192];
    static sp_decoder d;
    sp_frame f;
    FILE *in;
    const uint32_t boot = 1521119233u;
    const uint8_t uid[7] = {0x04, 0xa2, 0x24, 0xd2, 0xc3, 0x5e, 0x80};
    const uint8_t uid2[4] = {0xde, 0xad, 0xbe, 0xef};
    const uint8_t zeros[4] = {0, 0, 0, 0};
    const uint8_t badge[4] = {0x04, 0x11, 0x22, 0x33};

    if (argc != 2 || (in = fopen(argv[1], "r")) == NULL) {
        fprintf(stderr, "usage: test_vectors FILE\n");
        return 2;
    }
    sp_decoder_init(&d);
    while (fgets(line, sizeof line, in) != NULL) {
        char *sp = line, *h;
        int events = 0;
        while (*sp && *sp != ' ') sp++;
        if (*sp != ' ') continue;
        *sp = 0;
        for (h = sp + 1; nibble(h[0]) >= 0 && nibble(h[1]) >= 0; h += 2) {
            uint8_t b = (uint8_t)(nibble(h[0]) << 4 | nibble(h[1]));
            int r = sp_decoder_push(&d, b, &f);
            if (r == SP_FRAME) {
                r = sp_validate(&f);
            }
            if (r == SP_FRAME) {
                uint8_t wire[SP_MAX_WIRE];
                size_t n = sp_encode(&f, wire, sizeof wire);
                printf("%s frame %u %lu %lu ", line, (unsigned)f.type, (unsigned long)f.boot, (unsigned long)f.seq);
                hex(f.payload, f.len);
                printf(" ");
                hex(wire, n);
                printf("\n");
                events++;
            } else if (r < 0) {
                printf("%s error %s\n", line, errname(r));
                events++;
            }
        }
        if (events == 0) {
            printf("%s none\n", line);
        }
    }
    fclose(in);

    sp_hello(&f, boot, 1, 0, 79, 0, 0, 0, "SABOT-SIM", "SN0001", "1.0.0");
    build("hello-boot", &f);
    sp_hello(&f, boot, 0, 0, 127, 41, 305419896u, 1000, "X", "", "2");
    build("hello-status-reply", &f);
    sp_card(&f, boot, 2, 1, SP_SUIT_SPADES, 100, 1234, NULL, 0);
    build("card-ace-spades", &f);
    sp_card(&f, boot, 3, 10, SP_SUIT_HEARTS, 97, 65536, uid, sizeof uid);
    build("card-ten-hearts-uid", &f);
    sp_card(&f, 0, 256, 13, SP_SUIT_CLUBS, 0, 0, zeros, sizeof zeros);
    build("card-king-clubs-zeros", &f);
    sp_card(&f, 3735928559u, 4294967295u, 7, SP_SUIT_UNKNOWN, 255, 4294967295u, NULL, 0);
    build("card-rank-only", &f);
    sp_card_unreadable(&f, boot, 6, 1, 5000, NULL, 0);
    build("card-unreadable", &f);
    sp_card_unreadable(&f, boot, 7, 3, 5001, uid2, sizeof uid2);
    build("card-unreadable-uid", &f);
    sp_button(&f, boot, 8, SP_BUTTON_COUP, 1, 6000);
    build("button-coup", &f);
    sp_button(&f, boot, 9, SP_BUTTON_BURN, 1, 6100);
    build("button-burn-on", &f);
    sp_button(&f, boot, 10, SP_BUTTON_SUPERVISOR, 1, 6200);
    build("button-supervisor-void", &f);
    sp_cut_card(&f, boot, 11, 7000);
    build("cut-card", &f);
    sp_shoe_state(&f, boot, 12, SP_SHOE_LOADED | SP_SHOE_NEW, 8000);
    build("shoe-state-new-shoe", &f);
    sp_shoe_state(&f, boot, 13, SP_SHOE_LOADED | SP_SHOE_COVER_OPEN | SP_SHOE_JAM, 8001);
    build("shoe-state-jam-cover", &f);
    sp_alarm(&f, boot, 14, 513, 9000, "reader: antenna fault");
    build("alarm", &f);
    sp_heartbeat(&f, boot, 10000, 14, 2, SP_SHOE_LOADED | SP_SHOE_GATE_LOCKED);
    build("heartbeat", &f);
    sp_ack(&f, boot, 14);
    build("ack", &f);
    sp_ack(&f, 0, 0);
    build("ack-zero-bytes", &f);
    sp_ack(&f, 4294967295u, 4294967295u);
    f.seq = 4294967295u;
    build("ack-all-ff", &f);
    sp_nak(&f, boot, 12, SP_NAK_GAP);
    build("nak-gap", &f);
    sp_hello(&f, boot, 1, SP_MINOR, SP_CAP_SUIT | SP_CAP_UID | SP_CAP_GATE | SP_CAP_BUTTONS | SP_CAP_PERSIST | SP_CAP_DEALER,
             0, 0, 0, "SABOT-SIM", "SN0002", "1.1.0");
    build("hello-minor-1-dealer", &f);
    sp_dealer(&f, boot, 15, SP_DEALER_SIGN_IN, 11000, "D1042", badge, sizeof badge);
    build("dealer-sign-in", &f);
    sp_dealer(&f, boot, 16, SP_DEALER_SIGN_IN, 11500, NULL, uid, sizeof uid);
    build("dealer-sign-in-badge-only", &f);
    sp_dealer(&f, boot, 17, SP_DEALER_SIGN_OUT, 12000, "", NULL, 0);
    build("dealer-sign-out", &f);
    if (sp_crc16((const uint8_t *)"123456789", 9) != 0x29B1u) {
        printf("crc check value wrong\n");
        return 1;
    }
    printf("crc-check 29b1\n");
    return 0;
}
