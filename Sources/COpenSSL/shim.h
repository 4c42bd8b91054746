#ifndef AF_COPENSSL_SHIM_H
#define AF_COPENSSL_SHIM_H
// OpenSSL 3 libcrypto, as AuthFlowJOSE uses it. Only files under Sources/AuthFlowJOSE/OpenSSL/
// import this module. Function-like macros and variadic functions get typed `af_` shims here.
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#endif
