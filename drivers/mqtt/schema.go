package mqtt

import (
	"embed"
	"strings"
)

// Schemas holds the JSON Schema (draft 2020-12) of every payload, as
// schema/<name>.json; SchemaFile maps a topic to its file.
//
//go:embed schema/*.json
var Schemas embed.FS

// SchemaFile returns the path within Schemas of the JSON Schema for
// messages on topic, which is relative to the table prefix ("coup",
// "alert/ack", "cmd/ack/reply"), or "" for an unknown topic. Command topics
// ("cmd/ack") map to the command schema the pit system must follow.
func SchemaFile(topic string) string {
	switch topic {
	case TopicStatus:
		return "schema/status.json"
	case TopicCard:
		return "schema/card.json"
	case TopicCoup:
		return "schema/coup.json"
	case TopicAlert:
		return "schema/alert.json"
	case TopicAlertAck:
		return "schema/alert-ack.json"
	case TopicVoid:
		return "schema/void.json"
	case TopicState:
		return "schema/state.json"
	case TopicRoads:
		return "schema/roads.json"
	case TopicEvent:
		return "schema/event.json"
	}
	if rest, ok := strings.CutPrefix(topic, TopicCmd+"/"); ok {
		if strings.HasSuffix(rest, "/reply") {
			return "schema/command-reply.json"
		}
		if !strings.Contains(rest, "/") {
			return "schema/command.json"
		}
	}
	return ""
}
