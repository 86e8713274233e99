/**
 * The variables that point setup's tools at the proxy. HTTP_PROXY and
 * friends in both cases cover curl, wget, pip, Go, cargo, bundler, yarn and
 * apt (which reads http_proxy); npm reads npm_config_proxy/https_proxy; git
 * gets http.proxy through GIT_CONFIG_*; the JVM (Maven, Gradle) ignores the
 * environment and needs -D properties. Set for setup commands only.
 */
export function proxyEnvironment(url: string, noProxy = 'localhost,127.0.0.1,::1'): Record<string, string> {
  const { hostname, port } = new URL(url);
  const jvm = [
    `-Dhttp.proxyHost=${hostname}`,
    `-Dhttp.proxyPort=${port}`,
    `-Dhttps.proxyHost=${hostname}`,
    `-Dhttps.proxyPort=${port}`,
    `-Dhttp.nonProxyHosts=${noProxy.split(',').join('|')}`,
  ].join(' ');
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    NO_PROXY: noProxy,
    http_proxy: url,
    https_proxy: url,
    no_proxy: noProxy,
    npm_config_proxy: url,
    npm_config_https_proxy: url,
    YARN_HTTP_PROXY: url,
    YARN_HTTPS_PROXY: url,
    PIP_PROXY: url,
    CARGO_HTTP_PROXY: url,
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'http.proxy',
    GIT_CONFIG_VALUE_0: url,
    MAVEN_OPTS: jvm,
    GRADLE_OPTS: jvm,
    JAVA_TOOL_OPTIONS: jvm,
  };
}
