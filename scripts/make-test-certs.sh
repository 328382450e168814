#!/bin/sh
# Makes the test CA and the certificates test/network.test.ts serves and presents (no network).
# Run from the checkout's root; the output is checked in under test/fixtures/tls/.
# Valid for 100 years so the tests never expire; for tests only, never for a real service.
set -eu
dir=test/fixtures/tls
mkdir -p "$dir"
cd "$dir"
days=36500
subj() { printf '/CN=%s' "$1"; }
# The test CA, and a second CA the target does not know (for a client certificate it refuses).
for ca in ca other-ca; do
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$ca-key.pem" -out "$ca.pem" -days $days -subj "$(subj "scheduling-conformance test $ca")" 2>/dev/null
done
# The target's certificate: localhost, 127.0.0.1, and staging.test (a name only the test proxy resolves).
cat > server.ext <<'X'
subjectAltName = DNS:localhost, DNS:staging.test, IP:127.0.0.1
extendedKeyUsage = serverAuth
X
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout server-key.pem -out server.csr -subj "$(subj localhost)" 2>/dev/null
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -out server.pem -days $days -extfile server.ext 2>/dev/null
# A client certificate from the test CA, and one from the other CA.
cat > client.ext <<'X'
extendedKeyUsage = clientAuth
X
for who in client:ca stranger:other-ca; do
  name=${who%%:*}; ca=${who#*:}
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$name-key.pem" -out "$name.csr" -subj "$(subj "conformance $name")" 2>/dev/null
  openssl x509 -req -in "$name.csr" -CA "$ca.pem" -CAkey "$ca-key.pem" -CAcreateserial -out "$name.pem" -days $days -extfile client.ext 2>/dev/null
done
rm -f ./*.csr ./*.ext ./*.srl ca-key.pem other-ca-key.pem
