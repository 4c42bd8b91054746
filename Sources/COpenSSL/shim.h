#ifndef AF_COPENSSL_SHIM_H
#define AF_COPENSSL_SHIM_H
// OpenSSL 3 libcrypto, as AuthFlowJOSE uses it. Only files under Sources/AuthFlowJOSE/OpenSSL/
// import this module. Function-like macros and variadic functions get typed `af_` shims here.
#include <openssl/bio.h>
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

// Parameter names with static storage. OSSL_PARAM_BLD keeps the name pointers it is given until
// the parameters are built, so Swift must never hand it a temporary bridged string.
static inline const char *af_param_rsa_n(void) { return OSSL_PKEY_PARAM_RSA_N; }
static inline const char *af_param_rsa_e(void) { return OSSL_PKEY_PARAM_RSA_E; }
static inline const char *af_param_rsa_d(void) { return OSSL_PKEY_PARAM_RSA_D; }
static inline const char *af_param_rsa_p(void) { return OSSL_PKEY_PARAM_RSA_FACTOR1; }
static inline const char *af_param_rsa_q(void) { return OSSL_PKEY_PARAM_RSA_FACTOR2; }
static inline const char *af_param_rsa_dp(void) { return OSSL_PKEY_PARAM_RSA_EXPONENT1; }
static inline const char *af_param_rsa_dq(void) { return OSSL_PKEY_PARAM_RSA_EXPONENT2; }
static inline const char *af_param_rsa_qi(void) { return OSSL_PKEY_PARAM_RSA_COEFFICIENT1; }
static inline const char *af_param_group_name(void) { return OSSL_PKEY_PARAM_GROUP_NAME; }
static inline const char *af_param_pub_key(void) { return OSSL_PKEY_PARAM_PUB_KEY; }
static inline const char *af_param_priv_key(void) { return OSSL_PKEY_PARAM_PRIV_KEY; }
static inline const char *af_param_ec_pub_x(void) { return OSSL_PKEY_PARAM_EC_PUB_X; }
static inline const char *af_param_ec_pub_y(void) { return OSSL_PKEY_PARAM_EC_PUB_Y; }

// Curve names with static storage (OSSL_PARAM_BLD_push_utf8_string keeps the pointer too).
static inline const char *af_curve_p256(void) { return "P-256"; }
static inline const char *af_curve_p384(void) { return "P-384"; }
static inline const char *af_curve_p521(void) { return "P-521"; }

// BIO_get_mem_data is a macro over BIO_ctrl.
static inline long af_bio_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }

// OPENSSL_free is a macro that records the caller's file and line.
static inline void af_openssl_free(void *pointer) { OPENSSL_free(pointer); }

// A PEM password callback that never prompts: encrypted keys fail instead of reading a terminal.
static inline int af_pem_no_password(char *buf, int size, int rwflag, void *u) {
    (void)buf; (void)size; (void)rwflag; (void)u;
    return 0;
}

static inline EVP_PKEY *af_pem_read_private_key(BIO *bio) {
    return PEM_read_bio_PrivateKey(bio, NULL, af_pem_no_password, NULL);
}

static inline int af_rsa_pkcs1_padding(void) { return RSA_PKCS1_PADDING; }
static inline int af_rsa_pss_padding(void) { return RSA_PKCS1_PSS_PADDING; }
// Key selections for EVP_PKEY_fromdata (composite macros).
static inline int af_selection_public_key(void) { return EVP_PKEY_PUBLIC_KEY; }
static inline int af_selection_keypair(void) { return EVP_PKEY_KEYPAIR; }
#endif
