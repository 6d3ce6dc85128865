package main

// sabot pit: the pit console (docs/pit.md), served by cmd/internal/pit.

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/sabot-table/sabot/cmd/internal/pit"
	"github.com/sabot-table/sabot/drivers/mqtt"
)

func init() {
	register(&command{
		name:    "pit",
		summary: "serve the pit console: every table's status, coup, dealer and open alerts on one live page, with acknowledgement",
		run:     runPit,
	})
}

const pitUsage = `usage: sabot pit --broker URL [--broker URL ...] --users FILE [--listen ADDR] [flags]
       sabot pit --hash-password [--cost N] < password

Subscribes to every table's retained status, state and roads and to its
live alerts, coups and acknowledgements on the broker (several --broker:
the nodes of a cluster, tried in order), and serves one page: a tile per
table, the most urgent first, updated live, with the table's board page a
click away. A supervisor logged in acknowledges a table's alerts from it:
the console publishes the ack command with the user's name as operator
(the table must have [mqtt] commands = true). See docs/pit.md.

--hash-password reads a password (the first line of standard input) and
prints its bcrypt hash for the users file ("name:hash" a line).

Exit status: 0 stopped by a signal, 2 bad flags or files, 1 the server failed.

flags:
`

func runPit(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("pit", pitUsage, stderr)
	var brokers []string
	fs.Var(listFlag{&brokers}, "broker", "broker URL (tcp://host:1883, ssl://host:8883, ws://host/mqtt); repeat for a cluster's nodes")
	listen := fs.String("listen", "127.0.0.1:8090", "address to serve the page on")
	usersFile := fs.String("users", "", "users file: one \"name:bcrypt-hash\" a line (make a hash with --hash-password)")
	tlsCert := fs.String("tls-cert", "", "serve HTTPS with this PEM certificate (with --tls-key)")
	tlsKey := fs.String("tls-key", "", "the PEM private key of --tls-cert")
	boardsFile := fs.String("boards", "", "file of \"TABLE URL\" lines: each table's board page")
	boardURL := fs.String("board-url", "", "board page of tables not in --boards, {table} replaced by the table (http://{table}.floor.lan:8080/)")
	prefix := fs.String("topic-prefix", mqtt.DefaultTopicPrefix, "the tables' topic prefix ([mqtt] topic_prefix)")
	clientID := fs.String("client-id", "", "MQTT client id (default sabot-pit-<random>)")
	username := fs.String("username", "", "MQTT user name")
	passwordFile := fs.String("password-file", "", "file whose first line is the MQTT password (default: $SABOT_MQTT_PASSWORD)")
	mqttCA := fs.String("mqtt-tls-ca", "", "PEM CA certificates to trust for ssl:// brokers")
	mqttCert := fs.String("mqtt-tls-cert", "", "PEM client certificate for the broker")
	mqttKey := fs.String("mqtt-tls-key", "", "PEM client key for the broker")
	mqttName := fs.String("mqtt-tls-server-name", "", "name in the broker's certificate")
	maxTables := fs.Int("max-tables", pit.DefaultMaxTables, "most tables tracked (messages of more are dropped and counted)")
	refusal := fs.Duration("refusal-timeout", mqtt.DefaultRefusalTimeout, "a broker refusing the console's subscriptions this long is left for the next --broker (one broker is never left)")
	ttl := fs.Duration("session-ttl", pit.DefaultSessionTTL, "how long a login lasts")
	hashPw := fs.Bool("hash-password", false, "read a password from standard input, print its bcrypt hash, exit")
	cost := fs.Int("cost", pit.DefaultHashCost, "bcrypt cost for --hash-password")
	if code, exit := flagsExit(parseFlags(fs, args), stderr, ""); exit {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "sabot pit: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *hashPw {
		h, err := pit.HashPassword(stdin, *cost)
		if err != nil {
			fmt.Fprintln(stderr, "sabot", err)
			return 2
		}
		fmt.Fprintln(stdout, h)
		return 0
	}
	err := pit.Serve(ctx, pit.Options{Brokers: brokers, Listen: *listen, UsersFile: *usersFile,
		TLSCert: *tlsCert, TLSKey: *tlsKey, BoardsFile: *boardsFile, BoardURL: *boardURL, Prefix: *prefix,
		ClientID: *clientID, Username: *username, PasswordFile: *passwordFile,
		MQTTCA: *mqttCA, MQTTCert: *mqttCert, MQTTKey: *mqttKey, MQTTServerName: *mqttName,
		MaxTables: *maxTables, RefusalTimeout: *refusal, SessionTTL: *ttl, Log: stderr})
	switch {
	case err == nil:
		return 0
	case errors.Is(err, pit.ErrServeFailed):
		return 1
	default:
		fmt.Fprintln(stderr, "sabot", err)
		return 2
	}
}
