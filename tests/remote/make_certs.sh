#!/bin/sh
# Test TLS material for the remote client's tests (GnuTLS certtool, Debian
# gnutls-bin): a CA, a server certificate for NAME and IP, a client
# certificate, and a second CA that signed nothing of these.
#   make_certs.sh DIR NAME IP
set -eu
dir=$1 name=$2 ip=$3
cd "$dir"
ct() { certtool "$@" >/dev/null 2>&1; }
for k in ca other srv cli; do ct --generate-privkey --key-type=ecdsa --outfile $k.key; done
printf 'cn = "perflib test CA"\nca\ncert_signing_key\nexpiration_days = 2\n' > ca.tmpl
printf 'cn = "perflib other CA"\nca\ncert_signing_key\nexpiration_days = 2\n' > other.tmpl
printf 'cn = "%s"\ndns_name = "%s"\nip_address = "%s"\ntls_www_server\nexpiration_days = 2\n' "$name" "$name" "$ip" > srv.tmpl
printf 'cn = "perflib test client"\ntls_www_client\nexpiration_days = 2\n' > cli.tmpl
ct --generate-self-signed --load-privkey ca.key --template ca.tmpl --outfile ca.pem
ct --generate-self-signed --load-privkey other.key --template other.tmpl --outfile other.pem
ct --generate-certificate --load-privkey srv.key --load-ca-certificate ca.pem --load-ca-privkey ca.key \
   --template srv.tmpl --outfile srv.pem
ct --generate-certificate --load-privkey cli.key --load-ca-certificate ca.pem --load-ca-privkey ca.key \
   --template cli.tmpl --outfile cli.pem
chmod 600 ./*.key
test -s srv.pem && test -s cli.pem && test -s other.pem
