package store

import (
	"context"
	"crypto/rand"
	"fmt"
)

// ServerKey returns the shared secret called name, creating a random 32-byte
// one when none exists yet. Concurrent first calls from several processes
// agree: the insert that loses the race reads the winner's key.
func (s *Store) ServerKey(ctx context.Context, name string) ([]byte, error) {
	fresh := make([]byte, 32)
	if _, err := rand.Read(fresh); err != nil {
		return nil, err
	}
	if _, err := s.pool.Exec(ctx, `
		INSERT INTO server_keys (name, key) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, name, fresh); err != nil {
		return nil, fmt.Errorf("server key %s: %w", name, err)
	}
	var key []byte
	if err := s.pool.QueryRow(ctx, `SELECT key FROM server_keys WHERE name = $1`, name).Scan(&key); err != nil {
		return nil, fmt.Errorf("server key %s: %w", name, err)
	}
	return key, nil
}
