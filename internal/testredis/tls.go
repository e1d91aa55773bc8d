package testredis

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// StartTLS is Start with a server that speaks only TLS, with a certificate
// for 127.0.0.1 signed by a certificate authority of its own, whose PEM
// file is CAFile; URL is a rediss:// URL.
func StartTLS(t testing.TB) *Server {
	t.Helper()
	return start(t, true)
}

// certificates writes a CA and a server certificate for 127.0.0.1 into
// s.dir and returns redis-server's TLS flags for them.
func (s *Server) certificates() []string {
	caKey, caDER := s.certificate(nil, nil, &x509.Certificate{
		Subject:               pkix.Name{CommonName: "testredis CA"},
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
	})
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		s.t.Fatal(err)
	}
	key, der := s.certificate(ca, caKey, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		s.t.Fatal(err)
	}
	s.CAFile = s.writePEM("ca.pem", "CERTIFICATE", caDER)
	return []string{
		"--tls-cert-file", s.writePEM("server.pem", "CERTIFICATE", der),
		"--tls-key-file", s.writePEM("server.key", "EC PRIVATE KEY", keyDER),
		"--tls-ca-cert-file", s.CAFile,
		"--tls-auth-clients", "no",
	}
}

// certificate makes a key and a certificate from tmpl, signed by parent
// and its key, or self-signed when parent is nil.
func (s *Server) certificate(parent *x509.Certificate, parentKey *ecdsa.PrivateKey, tmpl *x509.Certificate) (*ecdsa.PrivateKey, []byte) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		s.t.Fatal(err)
	}
	tmpl.SerialNumber = big.NewInt(time.Now().UnixNano())
	tmpl.NotBefore = time.Now().Add(-time.Hour)
	tmpl.NotAfter = time.Now().Add(24 * time.Hour)
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		s.t.Fatal(err)
	}
	return key, der
}

// writePEM writes one PEM block into s.dir and returns the file's path.
func (s *Server) writePEM(name, typ string, der []byte) string {
	p := filepath.Join(s.dir, name)
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		s.t.Fatal(err)
	}
	return p
}
