package vendorq

import "gpuquote/internal/facts"

// KindFacts is the group of the platform's facts still unknown
// (docs/RULES.md §18.3): environment, support and data safety.
const KindFacts Kind = "facts"

// factGroup asks the vendor one question per unknown fact, in page order.
// Only the live questions ask them: a saved report's frozen questions stay
// as they were frozen (docs/RULES.md §18.3).
func factGroup(unknown []facts.Kind) []Group {
	if len(unknown) == 0 {
		return nil
	}
	g := Group{Kind: KindFacts, LabelID: "facts.vq.heading", Number: 0}
	for _, k := range unknown {
		g.Questions = append(g.Questions, Question{MessageID: k.QuestionID()})
	}
	return []Group{g}
}

// factMessageIDs are the messages the fact questions use.
func factMessageIDs() []string {
	ids := []string{"facts.vq.heading"}
	for _, k := range facts.Kinds {
		ids = append(ids, k.QuestionID())
	}
	return ids
}
