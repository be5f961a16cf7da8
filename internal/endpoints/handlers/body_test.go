package handlers

import (
	"strings"
	"testing"
)

func TestReadAllWithAnyHint(t *testing.T) {
	body := strings.Repeat("x", 3000)
	for _, hint := range []int64{-1, 0, 1, 2999, 3000, 3001, 1 << 30} {
		got, err := readAll(strings.NewReader(body), hint)
		if err != nil || string(got) != body {
			t.Errorf("hint %d: %d bytes, %v; want the whole body", hint, len(got), err)
		}
	}
}
