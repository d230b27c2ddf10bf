package webhook

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
)

// ErrBlockedAddress is a delivery or registration refused because its
// address is on a private, loopback, link-local, unspecified or multicast
// network (docs/RULES.md §24.7), which GPUQUOTE_WEBHOOK_ALLOW_PRIVATE=1
// allows.
var ErrBlockedAddress = errors.New("address refused: private, loopback, link-local, unspecified or multicast (GPUQUOTE_WEBHOOK_ALLOW_PRIVATE=1 allows it)")

// sharedSpace is RFC 6598's carrier-grade NAT space, private in practice.
var sharedSpace = netip.MustParsePrefix("100.64.0.0/10")

// thisNetwork is 0.0.0.0/8, "this network" (RFC 1122), never a receiver.
var thisNetwork = netip.MustParsePrefix("0.0.0.0/8")

// Blocked reports whether a delivery may not go to a.
func Blocked(a netip.Addr) bool {
	a = a.Unmap()
	return !a.IsValid() || a.IsPrivate() || a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() ||
		(a.Is4() && (sharedSpace.Contains(a) || thisNetwork.Contains(a))) ||
		(a.Is6() && a.As16()[0]&0xfe == 0xfc) // fc00::/7 (IsPrivate covers it; kept explicit)
}

// CheckURL is the registration's check of an endpoint's address: an
// absolute http or https URL with a host, no user information, at most
// 2,000 characters, and — where its host is a literal IP address — not a
// blocked one unless allowPrivate. A host name is checked at every
// delivery, on the address it resolves to then (dialControl).
func CheckURL(raw string, allowPrivate bool) error {
	if len(raw) > 2000 {
		return errors.New("the address is longer than 2,000 characters")
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" {
		return errors.New("want an http:// or https:// address")
	}
	if u.User != nil {
		return errors.New("the address may not hold a user name or password")
	}
	if u.Fragment != "" {
		return errors.New("the address may not hold a #fragment")
	}
	host := strings.Trim(u.Hostname(), "[]")
	if host == "" {
		return errors.New("want an http:// or https:// address")
	}
	if a, err := netip.ParseAddr(host); err == nil && !allowPrivate && Blocked(a) {
		return ErrBlockedAddress
	}
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		if !allowPrivate {
			return ErrBlockedAddress
		}
	}
	return nil
}

// dialControl refuses a connection to a blocked address, checked on the
// address actually dialled after resolution, so a name that resolves (or
// re-resolves) to a private address cannot slip through.
func dialControl(allowPrivate bool) func(network, address string, c syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		if allowPrivate {
			return nil
		}
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return fmt.Errorf("%w: %s", ErrBlockedAddress, address)
		}
		a, err := netip.ParseAddr(host)
		if err != nil || Blocked(a) {
			return fmt.Errorf("%w: %s", ErrBlockedAddress, host)
		}
		return nil
	}
}
