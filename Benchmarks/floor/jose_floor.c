/*
 * The libcrypto floor of AuthFlow's JWT paths: operations per second of exactly the OpenSSL calls
 * those paths make, with nothing around them. Each operation hashes a signing input of the given
 * length with a fetched SHA-256 (`EVP_Digest`, as `OpenSSLDigest.hash` does) and signs or verifies
 * the digest on an `EVP_PKEY_CTX` initialised once (as `PKey`'s context pool keeps them):
 *   es256_sign    P-256, EVP_PKEY_sign, DER signature out
 *   es256_verify  P-256, EVP_PKEY_verify of a DER signature
 *   rs256_verify  RSA 2048 (e = 65537), PKCS #1 v1.5 with SHA-256, EVP_PKEY_verify
 * What AuthFlow adds to these (base64url, JSON, the header and claim checks, choosing the key, the
 * raw/DER conversion of ECDSA signatures) is the difference between this floor and its own figure;
 * what the floor adds to `openssl speed` is the hash of the signing input and the digest's
 * PKCS #1 DigestInfo.
 *
 * usage: jose_floor SECONDS ES256_INPUT_BYTES RS256_INPUT_BYTES   Prints one JSON object.
 * Built by Benchmarks/run.sh with `cc -O2 ... -lcrypto`.
 */
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double seconds_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static void fail(const char *what) {
    fprintf(stderr, "jose_floor: %s failed\n", what);
    exit(1);
}

static EVP_PKEY_CTX *context(EVP_PKEY *key, const EVP_MD *md, int sign, int rsa) {
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL);
    if (ctx == NULL || (sign ? EVP_PKEY_sign_init(ctx) : EVP_PKEY_verify_init(ctx)) != 1) fail("context");
    if (rsa && EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) != 1) fail("padding");
    if (EVP_PKEY_CTX_set_signature_md(ctx, md) != 1) fail("signature digest");
    return ctx;
}

/* Hash `input` and sign (sign != 0) or verify `signature` on `ctx`, once. */
static void operation(EVP_PKEY_CTX *ctx, const EVP_MD *md, const unsigned char *input, size_t length, int sign,
                      unsigned char *signature, size_t *signature_length) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int digest_length = 0;
    if (EVP_Digest(input, length, digest, &digest_length, md, NULL) != 1) fail("digest");
    if (sign) {
        size_t capacity = *signature_length;
        if (EVP_PKEY_sign(ctx, signature, &capacity, digest, digest_length) != 1) fail("sign");
        *signature_length = capacity;
    } else if (EVP_PKEY_verify(ctx, signature, *signature_length, digest, digest_length) != 1) {
        fail("verify");
    }
}

/* Runs the operation in batches of 100 until `limit` seconds have passed; returns operations per second. */
static double measure(double limit, EVP_PKEY_CTX *ctx, const EVP_MD *md, const unsigned char *input, size_t length,
                      int sign, unsigned char *signature, size_t signature_length) {
    long operations = 0;
    double start = seconds_now(), elapsed = 0;
    for (int i = 0; i < 200; i++) {  // warm up
        size_t out = signature_length;
        operation(ctx, md, input, length, sign, signature, &out);
    }
    do {
        for (int i = 0; i < 100; i++) {
            size_t out = signature_length;
            operation(ctx, md, input, length, sign, signature, &out);
        }
        operations += 100;
        elapsed = seconds_now() - start;
    } while (elapsed < limit);
    return (double)operations / elapsed;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: jose_floor SECONDS ES256_INPUT_BYTES RS256_INPUT_BYTES\n");
        return 2;
    }
    double limit = atof(argv[1]);
    long es_length = atol(argv[2]), rs_length = atol(argv[3]);
    if (!(limit > 0) || es_length <= 0 || rs_length <= 0 || es_length > 1 << 20 || rs_length > 1 << 20) {
        fprintf(stderr, "jose_floor: expected seconds > 0 and input lengths of 1 byte to 1 MiB, found %s %s %s\n",
                argv[1], argv[2], argv[3]);
        return 2;
    }
    size_t largest = (size_t)(es_length > rs_length ? es_length : rs_length);
    unsigned char *input = malloc(largest);
    if (input == NULL) fail("allocation");
    for (size_t i = 0; i < largest; i++) input[i] = (unsigned char)('A' + i % 26);  // base64url-like text

    const EVP_MD *md = EVP_MD_fetch(NULL, "SHA256", NULL);
    EVP_PKEY *ec = EVP_EC_gen("P-256");
    EVP_PKEY *rsa = EVP_RSA_gen(2048);
    if (md == NULL || ec == NULL || rsa == NULL) fail("key generation");

    unsigned char ec_signature[128], rs_signature[512];
    size_t ec_length = sizeof ec_signature, rs_length_out = sizeof rs_signature;
    EVP_PKEY_CTX *ec_sign = context(ec, md, 1, 0), *ec_verify = context(ec, md, 0, 0);
    EVP_PKEY_CTX *rs_sign = context(rsa, md, 1, 1), *rs_verify = context(rsa, md, 0, 1);
    operation(ec_sign, md, input, (size_t)es_length, 1, ec_signature, &ec_length);
    operation(rs_sign, md, input, (size_t)rs_length, 1, rs_signature, &rs_length_out);

    double es_sign_rate =
        measure(limit, ec_sign, md, input, (size_t)es_length, 1, ec_signature, sizeof ec_signature);
    // Signing again left a signature of the same input in the buffer: its length is that of the last one.
    ec_length = sizeof ec_signature;
    operation(ec_sign, md, input, (size_t)es_length, 1, ec_signature, &ec_length);
    double es_verify_rate = measure(limit, ec_verify, md, input, (size_t)es_length, 0, ec_signature, ec_length);
    double rs_verify_rate =
        measure(limit, rs_verify, md, input, (size_t)rs_length, 0, rs_signature, rs_length_out);

    printf("{\"es256_sign\": %d, \"es256_verify\": %d, \"rs256_verify\": %d}\n", (int)es_sign_rate,
           (int)es_verify_rate, (int)rs_verify_rate);
    EVP_PKEY_CTX_free(ec_sign);
    EVP_PKEY_CTX_free(ec_verify);
    EVP_PKEY_CTX_free(rs_sign);
    EVP_PKEY_CTX_free(rs_verify);
    EVP_PKEY_free(ec);
    EVP_PKEY_free(rsa);
    free(input);
    return 0;
}
