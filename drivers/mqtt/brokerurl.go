package mqtt

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// brokerSchemes are the broker URL schemes the MQTT client dials; those
// marked true need no port in the URL (a WebSocket URL has its default).
var brokerSchemes = map[string]bool{"tcp": false, "mqtt": false, "ssl": false, "tls": false,
	"mqtts": false, "tcps": false, "ws": true, "wss": true}

// BrokerURLProblem returns what is wrong with a broker URL ("" if nothing), for
// sabotd's [mqtt] brokers and the --broker flags of sabot pit and floor-sim:
// a scheme the client dials, a host and, except for WebSockets, a port
// 1–65535.
func BrokerURLProblem(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "not a URL (" + strings.TrimPrefix(err.Error(), "parse "+strconv.Quote(s)+": ") + "); want e.g. tcp://host:1883, ssl://host:8883 or ws://host/mqtt"
	}
	portOptional, known := brokerSchemes[u.Scheme]
	switch {
	case !known || u.Opaque != "":
		return fmt.Sprintf("scheme %q: want a URL such as tcp://host:1883, ssl://host:8883 or ws://host/mqtt", u.Scheme)
	case u.Hostname() == "":
		return "no host; want e.g. " + u.Scheme + "://broker.lan:1883"
	case u.Port() == "" && !portOptional:
		return "no port; want e.g. " + u.Scheme + "://" + u.Host + ":" + map[bool]string{false: "1883", true: "8883"}[u.Scheme != "tcp" && u.Scheme != "mqtt"]
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Sprintf("port %s: must be 1–65535", p)
		}
	}
	return ""
}
