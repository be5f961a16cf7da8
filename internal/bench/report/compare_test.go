package report

import (
	"bytes"
	"testing"
)

// TestComparisonGolden compares a JSON-lines run of kube-apiserver (A)
// with a results file of kapi (B): every figure of both, the ratio B/A,
// and "–" where a run lacks a phase or a figure.
func TestComparisonGolden(t *testing.T) {
	in, err := Load("testdata/compare-a.jsonl", "testdata/compare-b.json")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteComparison(&buf, in[0], in[1]); err != nil {
		t.Fatal(err)
	}
	golden(t, "compare.txt", buf.Bytes())
}
