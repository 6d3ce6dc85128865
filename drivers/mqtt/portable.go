package mqtt

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// The topics sabotd publishes must work on every broker it supports:
// Mosquitto, the embedded broker, and NATS Server's MQTT listener
// (nats-server 2.9, Debian's). NATS maps an MQTT topic to a NATS subject,
// '/' becoming '.', so it refuses a topic with a '.' or white space in a
// level (it closes the publisher's connection: a daemon would reconnect and
// resend for ever), and a level "*" or ">" is a NATS wildcard. Both the
// table name and the topic prefix are checked here, once, at startup, so a
// configuration that works on one broker works on all.

var tableRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)

// TableProblem says why name cannot be a table name ("" when it can): 1–64
// letters, digits, '-' and '_', starting with a letter or digit. The name
// is a topic level and part of the client id and of every message id; '.'
// is refused because NATS Server's MQTT cannot carry it in a topic.
func TableProblem(name string) string {
	switch {
	case name == "":
		return "empty"
	case strings.Contains(name, "."):
		return "'.' is not allowed: NATS Server's MQTT cannot carry a '.' in a topic (it separates NATS subject tokens); use '-' or '_'"
	case !tableRE.MatchString(name):
		return "use 1–64 letters, digits, '-' and '_', starting with a letter or digit (it becomes an MQTT topic level)"
	}
	return ""
}

// TopicPrefixProblem says why prefix cannot be the topic prefix ("" when it
// can): a non-empty MQTT topic without wildcards ('+', '#'), NUL, a
// leading or trailing '/', and, for NATS Server's MQTT, without '.' or
// white space and without a level that is "*" or ">".
func TopicPrefixProblem(prefix string) string {
	switch {
	case prefix == "":
		return "empty"
	case strings.ContainsAny(prefix, "+#\x00"):
		return "no MQTT wildcards ('+', '#') or NUL"
	case strings.HasPrefix(prefix, "/") || strings.HasSuffix(prefix, "/"):
		return "no leading or trailing '/'"
	case strings.Contains(prefix, "."):
		return "'.' is not allowed: NATS Server's MQTT cannot carry a '.' in a topic; use '-' or '_'"
	case strings.IndexFunc(prefix, unicode.IsSpace) >= 0:
		return "no white space: NATS Server's MQTT cannot carry it in a topic"
	}
	for _, l := range strings.Split(prefix, "/") {
		if l == "*" || l == ">" {
			return fmt.Sprintf("level %q is a NATS wildcard: NATS Server's MQTT would treat it as one", l)
		}
	}
	return ""
}
