// The error codes of this module's errors are `ErrorCode` values: an app that imports it also sees
// AuthFlowJSON, where that shape (and `JSONValue`) is defined.
@_exported public import AuthFlowJSON
