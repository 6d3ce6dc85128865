// Package embedded is the MQTT broker sabotd runs in its own process when
// no broker is configured (and for --demo): mochi-mqtt with Sabot's hooks.
// It reads Mosquitto's password_file and acl_file (Start, Options), lets
// the daemon's own clients in with a password drawn at each start
// (Broker.Credentials), and bounds what a client can cost: MaxPacket,
// MaxClients, MaxRetained, a write queue per client, a failed-login rate.
// It is a package of its own so that programs that only speak MQTT (sabot)
// do not link a broker server.
package embedded
