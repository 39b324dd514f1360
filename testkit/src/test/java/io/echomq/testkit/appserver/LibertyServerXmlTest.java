package io.echomq.testkit.appserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.StringReader;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

/** The {@code server.xml} a Liberty test server starts from, parsed back as Liberty reads it. */
class LibertyServerXmlTest {

    @Test
    void theServerGetsItsFeaturesLoopbackHttpLibrariesElementsAdaptersAndApplications() throws Exception {
        String xml = new LibertyServerXml("EchoMQ end-to-end test")
                .features(List.of("webProfile-10.0", "connectors-2.1"))
                .httpOnLoopback(41234)
                .library("postgresql", List.of("${server.config.dir}/lib/postgresql/postgresql.jar"))
                .elements("<dataSource jndiName=\"jdbc/orders\"><jdbcDriver libraryRef=\"postgresql\"/></dataSource>"
                        + "<activationSpec id=\"orders/OrderFulfillment\"/>")
                .resourceAdapter("echomq", "${server.config.dir}/apps/echomq.rar")
                .webApplication("orders.war", "orders", List.of("echomq"))
                .toXml();

        Element server = parse(xml).getDocumentElement();
        assertThat(server.getTagName()).isEqualTo("server");
        assertThat(texts(server.getElementsByTagName("feature"))).containsExactly("webProfile-10.0", "connectors-2.1");
        Element http = only(server, "httpEndpoint");
        assertThat(http.getAttribute("host")).isEqualTo("127.0.0.1");
        assertThat(http.getAttribute("httpPort")).isEqualTo("41234");
        assertThat(http.getAttribute("httpsPort")).as("no HTTPS port").isEqualTo("-1");
        Element library = only(server, "library");
        assertThat(library.getAttribute("id")).isEqualTo("postgresql");
        assertThat(only(library, "file").getAttribute("name")).isEqualTo("${server.config.dir}/lib/postgresql/postgresql.jar");
        assertThat(only(only(server, "dataSource"), "jdbcDriver").getAttribute("libraryRef")).isEqualTo("postgresql");
        assertThat(only(server, "activationSpec").getAttribute("id")).isEqualTo("orders/OrderFulfillment");
        assertThat(only(server, "resourceAdapter").getAttribute("location")).isEqualTo("${server.config.dir}/apps/echomq.rar");
        Element application = only(server, "webApplication");
        assertThat(application.getAttribute("location")).isEqualTo("orders.war");
        assertThat(application.getAttribute("contextRoot")).isEqualTo("/orders");
        assertThat(only(application, "classloader").getAttribute("classProviderRef")).isEqualTo("echomq");
    }

    @Test
    void aWarWithoutAdaptersSeesTheThirdPartyApisAndNoAdapterClasses() throws Exception {
        String xml = new LibertyServerXml("test").webApplication("echomq.war", "echomq", List.of()).toXml();

        Element classLoader = only(only(parse(xml).getDocumentElement(), "webApplication"), "classloader");
        assertThat(classLoader.getAttribute("apiTypeVisibility")).as("MicroProfile Telemetry's OpenTelemetry API")
                .isEqualTo("+third-party");
        assertThat(classLoader.hasAttribute("classProviderRef")).isFalse();
    }

    @Test
    void aValueWithMarkupCharactersStaysOneAttribute() throws Exception {
        String xml = new LibertyServerXml("test").library("a\"b<&>", List.of("x.jar")).toXml();

        assertThat(only(parse(xml).getDocumentElement(), "library").getAttribute("id")).isEqualTo("a\"b<&>");
    }

    @Test
    void elementsThatAreNotWellFormedFailNamingThemselves() {
        assertThatThrownBy(() -> new LibertyServerXml("test").elements("<dataSource id=\"orders\">"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("config:")
                .hasMessageContaining("<dataSource id=\"orders\">");
    }

    private static Document parse(String xml) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new InputSource(new StringReader(xml)));
    }

    private static Element only(Element parent, String name) {
        NodeList found = parent.getElementsByTagName(name);
        assertThat(found.getLength()).as("<%s> elements in <%s>", name, parent.getTagName()).isEqualTo(1);
        return (Element) found.item(0);
    }

    private static List<String> texts(NodeList nodes) {
        return java.util.stream.IntStream.range(0, nodes.getLength()).mapToObj(i -> nodes.item(i).getTextContent()).toList();
    }
}
