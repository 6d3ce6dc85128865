/*
 * example_card.c - encode one CARD frame with the C codec and print it as
 * hex: the ten of hearts, event 3 of boot 0x5AB07001, read quality 97 %,
 * shoe clock 65 536 ms, no UID. firmware-proto's ExampleAppendFrame builds
 * the same frame in Go; a test checks that both print the same bytes.
 *
 *   gcc -std=c99 -Wall -Wextra -Werror example_card.c sabot_proto.c -o example_card
 */
#include <stdio.h>
#include "sabot_proto.h"

int main(void)
{
    sp_frame f;
    uint8_t wire[SP_MAX_WIRE];
    size_t n, i;

    sp_card(&f, 0x5AB07001u, 3, 10, SP_SUIT_HEARTS, 97, 65536u, NULL, 0);
    n = sp_encode(&f, wire, sizeof wire);
    for (i = 0; i < n; i++) {
        printf("%02x", wire[i]);
    }
    printf("\n");
    return n > 0 ? 0 : 1;
}
