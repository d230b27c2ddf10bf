// Package apiclient is a client of gpuquote's data API generated from the
// served OpenAPI description (internal/apispec) by oapi-codegen, pinned in
// go.mod as a tool, as an integrator would generate one. The tests drive an
// integrator's journey with it against a live test server
// (TestGeneratedClientJourney, internal/server), so the description is one
// a code generator accepts and the server answers what it describes
// (docs/RULES.md §19.6).
//
// client.gen.go is generated (make generate, or go generate here) and
// committed; TestClientIsGenerated (gen) fails when it is not what the
// description gives now.
package apiclient

//go:generate go run ./gen
