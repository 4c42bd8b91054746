import AuthFlow

/// The same-site re-POST page for a cross-site form_post callback: the public kit's ``FormPostBounce``.
typealias BouncePage = FormPostBounce
