package store

import "testing"

func TestPlainRead(t *testing.T) {
	for sql, want := range map[string]bool{
		"SELECT 1": true,
		"\n\t\tSELECT q.updated_at FROM quotes q":                    true,
		"WITH picked AS (SELECT 1) SELECT * FROM picked":             true,
		"(SELECT 1) UNION (SELECT 2)":                                true,
		"WITH x AS (UPDATE t SET a = 1 RETURNING a) SELECT * FROM x": false,
		"WITH x AS (DELETE FROM t RETURNING a) SELECT 1":             false,
		"INSERT INTO t VALUES (1) RETURNING id":                      false,
		"SELECT id FROM t WHERE id = 1 FOR UPDATE":                   false,
		"SELECT id FROM t FOR NO KEY UPDATE SKIP LOCKED":             false,
		"SELECT id FROM t FOR\n SHARE":                               false,
		"SELECT nextval('s')":                                        false,
		"SELECT pg_advisory_xact_lock(1)":                            false,
		"select set_config('a', 'b', true)":                          false,
		"UPDATE t SET a = 1":                                         false,
		"":                                                           false,
		"SET x = 1":                                                  false,
	} {
		if got := isPlainRead(sql); got != want || plainRead(sql) != want {
			t.Errorf("plainRead(%q) = %v, want %v", sql, got, want)
		}
	}
}

func TestLSNText(t *testing.T) {
	for _, s := range []string{"0/0", "16/B374D848", "0/300E8E8", "FFFFFFFF/FFFFFFFF"} {
		l, err := ParseLSN(s)
		if err != nil || l.String() != s {
			t.Errorf("ParseLSN(%q) = %v (%s), %v", s, uint64(l), l, err)
		}
	}
	if l, _ := ParseLSN("16/B374D848"); l != 0x16B374D848 {
		t.Errorf("16/B374D848 = %x", uint64(l))
	}
	for _, s := range []string{"", "16", "x/1", "1/x", "100000000/0"} {
		if _, err := ParseLSN(s); err == nil {
			t.Errorf("ParseLSN(%q) took it", s)
		}
	}
}
