package metrics

import (
	"context"
	"errors"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/kapi-dev/kapi/internal/admission"
)

// fakeChain admits everything and rejects validation.
type fakeChain struct{}

func (fakeChain) Admit(context.Context, *admission.Attributes) error    { return nil }
func (fakeChain) Validate(context.Context, *admission.Attributes) error { return errors.New("no") }

func TestAdmissionSteps(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := New(reg)
	if err != nil {
		t.Fatal(err)
	}
	chain := m.Admission(fakeChain{})
	a := &admission.Attributes{Operation: admission.Create}
	_ = chain.Admit(context.Background(), a)
	_ = chain.Admit(context.Background(), a)
	if err := chain.Validate(context.Background(), a); err == nil {
		t.Fatal("the wrapped chain's error was lost")
	}
	for _, c := range []struct {
		labels []string
		want   int
	}{
		{[]string{"admit", "CREATE", "false"}, 2},
		{[]string{"validate", "CREATE", "true"}, 1},
	} {
		h := m.admissionStep.WithLabelValues(c.labels...).(prometheus.Histogram)
		if got := testutil.CollectAndCount(h); got != 1 {
			t.Fatalf("series %v: %d", c.labels, got)
		}
		ch := make(chan prometheus.Metric, 1)
		h.Collect(ch)
		pb := <-ch
		d := &dto.Metric{}
		if err := pb.Write(d); err != nil {
			t.Fatal(err)
		}
		count := int(d.GetHistogram().GetSampleCount())
		if count != c.want {
			t.Errorf("%v: %d observations, want %d", c.labels, count, c.want)
		}
	}
}
