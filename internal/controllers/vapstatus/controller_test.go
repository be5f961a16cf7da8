package vapstatus

import (
	"context"
	"log/slog"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
)

type checkerFunc func(*admissionregistrationv1.ValidatingAdmissionPolicy) []admissionregistrationv1.ExpressionWarning

func (f checkerFunc) Check(p *admissionregistrationv1.ValidatingAdmissionPolicy) []admissionregistrationv1.ExpressionWarning {
	return f(p)
}

// TestStatus: each generation is checked once and its warnings and
// observedGeneration applied to status.
func TestStatus(t *testing.T) {
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Generation: 2},
		Spec:       admissionregistrationv1.ValidatingAdmissionPolicySpec{Validations: []admissionregistrationv1.Validation{{Expression: "object.x"}}},
	}
	client := fake.NewClientset(p)
	f := informers.NewSharedInformerFactory(client, 0)
	checked := 0
	c, err := New(f.Admissionregistration().V1().ValidatingAdmissionPolicies(), client.AdmissionregistrationV1().ValidatingAdmissionPolicies(),
		checkerFunc(func(*admissionregistrationv1.ValidatingAdmissionPolicy) []admissionregistrationv1.ExpressionWarning {
			checked++
			return []admissionregistrationv1.ExpressionWarning{{FieldRef: "spec.validations[0].expression", Warning: "apps/v1, Kind=Deployment: bad\n"}}
		}), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.Start(ctx.Done())
	done := make(chan struct{})
	go func() { c.Run(ctx); close(done) }()
	var got *admissionregistrationv1.ValidatingAdmissionPolicy
	err = wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err = client.AdmissionregistrationV1().ValidatingAdmissionPolicies().Get(ctx, "p", metav1.GetOptions{})
		return err == nil && got.Status.ObservedGeneration == 2, nil
	})
	if err != nil {
		t.Fatalf("status never written: %+v", got)
	}
	if tc := got.Status.TypeChecking; tc == nil || len(tc.ExpressionWarnings) != 1 || tc.ExpressionWarnings[0].Warning != "apps/v1, Kind=Deployment: bad\n" {
		t.Fatalf("typeChecking = %+v", got.Status.TypeChecking)
	}
	cancel()
	<-done
	if checked != 1 {
		t.Errorf("checked %d times, want 1", checked)
	}
}
