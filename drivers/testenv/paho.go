package testenv

import (
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
)

// PahoClient connects a clean-session paho client with the given id to the
// broker at url (waiting at most 5 s), fails the test if it cannot, and
// disconnects it when the test ends.
func PahoClient(t testing.TB, url, id string) paho.Client {
	t.Helper()
	c := paho.NewClient(paho.NewClientOptions().AddBroker(url).SetClientID(id).SetCleanSession(true))
	if tok := c.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("connect %s: %v", url, tok.Error())
	}
	t.Cleanup(func() { c.Disconnect(50) })
	return c
}

// PahoPublish publishes payload on topic at QoS 1 and fails the test if
// the broker has not acknowledged it within 5 s.
func PahoPublish(t testing.TB, c paho.Client, topic string, retained bool, payload []byte) {
	t.Helper()
	if tok := c.Publish(topic, 1, retained, payload); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("publish %s: %v", topic, tok.Error())
	}
}
