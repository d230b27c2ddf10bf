// Package auth holds passwords, session tokens, roles and the middleware
// that enforces them on every route.
package auth

// Role is what a user may do; every user has exactly one.
type Role string

// The four roles (docs/RULES.md §11.4).
const (
	RoleAnalyst Role = "analyst"
	RoleFinance Role = "finance"
	RoleEditor  Role = "editor"
	RoleAdmin   Role = "admin"
)

// Roles lists every role, in the order forms show them.
var Roles = []Role{RoleAnalyst, RoleFinance, RoleEditor, RoleAdmin}

// Valid reports whether r is one of the four roles.
func (r Role) Valid() bool {
	for _, x := range Roles {
		if r == x {
			return true
		}
	}
	return false
}

// Policy says who may call a route. The zero Policy admits nobody, so a
// route added without a policy fails closed.
type Policy struct {
	// Public admits anonymous visitors too.
	Public bool
	// AnyUser admits every signed-in user whatever the role.
	AnyUser bool
	// Roles admits signed-in users holding one of these roles. Admin is
	// always admitted to signed-in routes ("admins can do everything").
	Roles []Role
	// NoCSRF exempts a state-free endpoint (it stores nothing) from the
	// CSRF check, e.g. the public evaluation API called by scripts.
	NoCSRF bool
	// Token also admits personal API tokens ("Authorization: Bearer"),
	// authenticating the request as the token's user. A token-authenticated
	// request skips the CSRF check (no browser attaches that header on its
	// own); a cookie session on the same route still needs its CSRF token.
	// On routes without Token the header authenticates nobody.
	Token bool
	// Scope is what a token must hold on this route (docs/RULES.md
	// §19.2; user.APIScopes): a token without it is refused with 403,
	// whatever its user's role. A session is not limited by scopes.
	Scope string
}

// Public admits everyone, signed in or not.
var Public = Policy{Public: true}

// AnyUser admits every signed-in user.
var AnyUser = Policy{AnyUser: true}

// Allow admits signed-in users with one of the given roles (and admins).
func Allow(roles ...Role) Policy { return Policy{Roles: roles} }

// Allows reports whether a user with role r (empty when anonymous) passes.
func (p Policy) Allows(r Role, signedIn bool) bool {
	if !p.Defined() {
		return false
	}
	if p.Public {
		return true
	}
	if !signedIn {
		return false
	}
	if p.AnyUser || r == RoleAdmin {
		return true
	}
	for _, x := range p.Roles {
		if x == r {
			return true
		}
	}
	return false
}

// Defined reports whether the policy admits anybody at all.
func (p Policy) Defined() bool { return p.Public || p.AnyUser || len(p.Roles) > 0 }
