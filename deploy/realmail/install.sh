#!/bin/sh
# Installs the suite's second pair of mail servers, Dovecot 2.3 (IMAP, LMTP) and
# Postfix 3.7, from the Debian packages when they are missing. Idempotent: exits at
# once when both are there. Nothing is started or enabled system-wide: the tests run
# their own instances on loopback with configurations of their own (tests/realmail.py).
#
# Exit status: 0 installed (or already there); 3 cannot install here (not root, or no
# apt-get), with the reason on stderr.
set -eu
if command -v dovecot >/dev/null 2>&1 && command -v postfix >/dev/null 2>&1 \
        && [ -x /usr/lib/dovecot/lmtp ]; then
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "realmail: Dovecot and Postfix are not installed and this is not root" \
         "(run: sudo apt-get install dovecot-imapd dovecot-lmtpd postfix)" >&2
    exit 3
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "realmail: Dovecot and Postfix are not installed and there is no apt-get" >&2
    exit 3
fi
# Postfix's package asks how to configure the system's mail: not at all (the tests
# bring their own), and no service is started (no systemd in a container; the
# package's own start is refused by policy-rc.d or fails harmlessly).
echo "postfix postfix/main_mailer_type select No configuration" | debconf-set-selections
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -o DPkg::Lock::Timeout=300 --no-install-recommends \
        dovecot-imapd dovecot-lmtpd postfix >/dev/null 2>&1; then
    apt-get update >/dev/null
    apt-get install -y -o DPkg::Lock::Timeout=300 --no-install-recommends \
        dovecot-imapd dovecot-lmtpd postfix >/dev/null
fi
command -v dovecot >/dev/null && command -v postfix >/dev/null
