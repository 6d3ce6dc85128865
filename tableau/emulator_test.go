package tableau_test

import "os"

// archScaled returns n, or a tenth of it (at least 1) when the tests run
// under a CPU emulator for the ARM builds (.ci/arm-test sets
// SABOT_TEST_EMULATOR to qemu's name). It is for the tests that check
// byte handling against a reference over many random inputs (the
// transcript lexer's): their code holds no arithmetic that differs by
// architecture, so a tenth of the inputs on ARM still runs every path
// there, while the full count runs natively on every CI run. Tests of
// arithmetic that can differ (the odds engine's wrapping sums, float
// formatting) keep their full counts under the emulator.
func archScaled(n int) int {
	if os.Getenv("SABOT_TEST_EMULATOR") == "" {
		return n
	}
	return max(n/10, 1)
}
