package sdnotify_test

import (
	"context"

	"github.com/sabot-table/sabot/drivers/sdnotify"
)

func Example() {
	// After the journal is replayed and the shoe port is open:
	sdnotify.Ready("table T1 ready")
	ctx, cancel := context.WithCancel(context.Background())
	go sdnotify.RunWatchdog(ctx, func() bool { return true /* main loop alive */ })
	// ... on SIGTERM:
	sdnotify.Stopping()
	cancel()
	// Output:
}
