public import AuthFlow
import AuthFlowDeployment
import Foundation

/// How the examples find their `providers.yaml`: the first command-line argument, else `providers.yaml` in the
/// current directory. `${VAR}` references are read from the environment.
public enum ExampleConfiguration {
    /// Loads the configuration, or prints every problem (file, line, column) and exits with status 2.
    public static func load() -> Configuration {
        let path = CommandLine.arguments.dropFirst().first ?? "providers.yaml"
        do {
            return try ConfigurationLoader(environment: ProcessInfo.processInfo.environment).load(path: path)
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            exit(2)
        }
    }

    /// Prints `message` to standard error and exits with status 1.
    public static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("\(message)\n".utf8))
        exit(1)
    }
}
