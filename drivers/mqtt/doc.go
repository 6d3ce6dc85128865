// Package mqtt publishes a table's cards, coups, alerts, voids, status and
// state over MQTT through a durable outbox, takes pit commands, and embeds a
// loopback broker for when none is configured.
//
// Topics are <TopicPrefix>/<Table>/<suffix> (default prefix "sabot"); the
// suffixes, payloads and their JSON Schemas are documented for integrators in
// README.md beside this file and in schema/.
//
// Delivery: Publisher.Publish writes messages to a bbolt outbox in the state
// directory (fsynced, one fsync for messages arriving together) before the
// MQTT client (eclipse/paho.mqtt.golang) sees them; a message leaves the
// outbox only when the broker has acknowledged it (PUBACK, QoS 1). After a
// reconnect or a restart the backlog goes first, in order. Delivery is at
// least once; every payload carries a stable, unique id for de-duplication.
package mqtt
