package user

import (
	"encoding/json"
	"time"
)

// AuditRecord is one entry of the audit log: who (the actor) did what to
// which entity, with the entity before and after as JSON, and the request
// it came from.
type AuditRecord struct {
	ID         int64
	At         time.Time
	ActorID    int64
	ActorEmail string
	Action     string
	Entity     string
	EntityID   string
	Before     json.RawMessage
	After      json.RawMessage
	RequestID  string
	ClientIP   string
}
