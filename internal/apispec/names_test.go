package apispec

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"
)

// generatorTypes are names client generators give types of their own, so
// a component of that name clashes with them: ogen (v1.25) names the
// optional form of its day type OptDate, as it would a schema "Date".
var generatorTypes = []string{"Date"}

// TestComponentNamesAreDistinct: no component name is used by two kinds of
// component (a schema and a parameter, a schema and a response, …) nor
// by a type a client generator defines itself: generators make one type
// per name, and oapi-codegen stops at "duplicate typename 'Cursor'" and
// ogen at "anonymous type name conflict: OptDate" (docs/RULES.md §19.6).
func TestComponentNamesAreDistinct(t *testing.T) {
	b, err := Document()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components map[string]map[string]json.RawMessage `json:"components"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	kindOf := map[string]string{}
	for _, kind := range slices.Sorted(maps.Keys(doc.Components)) {
		for name := range doc.Components[kind] {
			if kind == "securitySchemes" {
				continue // not a type
			}
			if other, ok := kindOf[name]; ok {
				t.Errorf("%s is both one of components.%s and one of components.%s", name, other, kind)
			}
			kindOf[name] = kind
			if slices.Contains(generatorTypes, name) {
				t.Errorf("components.%s.%s has the name of a client generator's own type", kind, name)
			}
		}
	}
	if len(kindOf) < 20 {
		t.Fatalf("only %d components found", len(kindOf))
	}
}
