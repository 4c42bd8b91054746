#ifndef AF_CCURL_SHIM_H
#define AF_CCURL_SHIM_H
// libcurl, as AuthFlowHTTP's client uses it. Variadic curl_easy_setopt/getinfo get typed
// `af_` shims so Swift never calls a C variadic function.
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

/// curl_easy_setopt for options taking a `long`.
static inline CURLcode af_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt for options taking a `curl_off_t`.
static inline CURLcode af_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt for options taking a NUL-terminated string (libcurl copies it).
static inline CURLcode af_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt for options taking an opaque pointer (WRITEDATA, HEADERDATA, PRIVATE).
static inline CURLcode af_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt for options taking a header list (the list must outlive the transfer).
static inline CURLcode af_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt for WRITEFUNCTION and HEADERFUNCTION.
static inline CURLcode af_curl_easy_setopt_write_callback(CURL *handle, CURLoption option,
                                                          curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt for XFERINFOFUNCTION (progress, used to abort a cancelled transfer).
static inline CURLcode af_curl_easy_setopt_xferinfo(CURL *handle, curl_xferinfo_callback value) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, value);
}

/// curl_easy_getinfo for values of type `long`.
static inline CURLcode af_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

/// curl_easy_getinfo for CURLINFO_PRIVATE.
static inline CURLcode af_curl_easy_getinfo_private(CURL *handle, void **value) {
    char *pointer = NULL;
    CURLcode code = curl_easy_getinfo(handle, CURLINFO_PRIVATE, &pointer);
    *value = pointer;
    return code;
}

/// curl_multi_setopt for options taking a `long`.
static inline CURLMcode af_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

/// The CURLcode carried by a CURLMSG_DONE message (a union member Swift cannot name portably).
static inline CURLcode af_curl_msg_result(const CURLMsg *message) {
    return message->data.result;
}

#endif
