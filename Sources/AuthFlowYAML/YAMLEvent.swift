/// One parsing event, as the LibYAML layer hands it over (no C types past that layer).
enum YAMLEvent {
    /// The kind of a collection-start event.
    enum Collection { case sequence, mapping }

    case streamStart
    case streamEnd
    case documentStart(YAMLMark)
    case documentEnd
    case alias(anchor: String, mark: YAMLMark)
    case scalar(YAMLScalar, anchor: String?)
    case collectionStart(Collection, anchor: String?, tag: String?, mark: YAMLMark)
    case collectionEnd
}
