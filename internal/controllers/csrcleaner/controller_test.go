package csrcleaner

import (
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var now = time.Date(2027, 3, 4, 5, 6, 7, 0, time.UTC)

func request(created time.Duration, issued bool, conds map[certificatesv1.RequestConditionType]time.Duration) *certificatesv1.CertificateSigningRequest {
	c := &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: "r", CreationTimestamp: metav1.NewTime(now.Add(-created))}}
	if issued {
		c.Status.Certificate = []byte("not parsed")
	}
	for typ, ago := range conds {
		c.Status.Conditions = append(c.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
			Type: typ, Status: corev1.ConditionTrue, LastUpdateTime: metav1.NewTime(now.Add(-ago))})
	}
	return c
}

// TestExpired pins upstream's ages: an hour after issue, denial or
// failure, a day for a request nobody acted on.
func TestExpired(t *testing.T) {
	approved, denied, failed := certificatesv1.CertificateApproved, certificatesv1.CertificateDenied, certificatesv1.CertificateFailed
	h := time.Hour
	tests := []struct {
		name string
		csr  *certificatesv1.CertificateSigningRequest
		want bool
	}{
		{"pending 23h", request(23*h, false, nil), false},
		{"pending 25h", request(25*h, false, nil), true},
		{"issued 30m ago", request(2*h, true, map[certificatesv1.RequestConditionType]time.Duration{approved: 30 * time.Minute}), false},
		{"issued 2h ago", request(3*h, true, map[certificatesv1.RequestConditionType]time.Duration{approved: 2 * h}), true},
		{"approved 2h ago, not issued", request(3*h, false, map[certificatesv1.RequestConditionType]time.Duration{approved: 2 * h}), false},
		{"denied 30m ago", request(2*h, false, map[certificatesv1.RequestConditionType]time.Duration{denied: 30 * time.Minute}), false},
		{"denied 2h ago", request(3*h, false, map[certificatesv1.RequestConditionType]time.Duration{denied: 2 * h}), true},
		{"failed 2h ago", request(3*h, false, map[certificatesv1.RequestConditionType]time.Duration{approved: 2 * h, failed: 2 * h}), true},
	}
	for _, tt := range tests {
		if got := Expired(tt.csr, now); got != tt.want {
			t.Errorf("%s: Expired = %v, want %v", tt.name, got, tt.want)
		}
	}
}
