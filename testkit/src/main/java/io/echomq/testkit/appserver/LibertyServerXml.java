package io.echomq.testkit.appserver;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.List;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.transform.OutputKeys;
import javax.xml.transform.Transformer;
import javax.xml.transform.TransformerException;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;
import org.xml.sax.helpers.DefaultHandler;

/**
 * An Open Liberty {@code server.xml}, built as a document and written by the JDK's XML
 * transformer, so a name or value with {@code <}, {@code &} or a quote stays one attribute and
 * a caller's elements are well-formed XML or fail here, naming themselves, not in Liberty's log.
 */
final class LibertyServerXml {

    private final Document document;
    private final Element server;

    LibertyServerXml(String description) {
        document = newBuilder().newDocument();
        server = document.createElement("server");
        server.setAttribute("description", description);
        document.appendChild(server);
    }

    /** {@code <featureManager>} with one {@code <feature>} a name. */
    LibertyServerXml features(List<String> names) {
        Element manager = child(server, "featureManager");
        names.forEach(name -> child(manager, "feature").setTextContent(name));
        return this;
    }

    /** HTTP on 127.0.0.1 only, on {@code port}; no HTTPS. */
    LibertyServerXml httpOnLoopback(int port) {
        Element endpoint = child(server, "httpEndpoint");
        endpoint.setAttribute("id", "defaultHttpEndpoint");
        endpoint.setAttribute("host", "127.0.0.1");
        endpoint.setAttribute("httpPort", Integer.toString(port));
        endpoint.setAttribute("httpsPort", "-1");
        return this;
    }

    /** {@code <library id="id">} with a {@code <file name="…"/>} a jar. */
    LibertyServerXml library(String id, List<String> files) {
        Element library = child(server, "library");
        library.setAttribute("id", id);
        files.forEach(file -> child(library, "file").setAttribute("name", file));
        return this;
    }

    /** Elements written by the caller (e.g. a {@code <dataSource>}), parsed and added as they are. */
    LibertyServerXml elements(String xml) {
        Document parsed;
        try {
            parsed = newBuilder().parse(new InputSource(new StringReader("<elements>" + xml + "</elements>")));
        } catch (SAXException | IOException e) {
            throw new IllegalArgumentException("config: not well-formed server.xml elements (" + e.getMessage() + "): " + xml, e);
        }
        for (Node node = parsed.getDocumentElement().getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node.getNodeType() == Node.ELEMENT_NODE) {
                server.appendChild(document.importNode(node, true));
            }
        }
        return this;
    }

    /** {@code <resourceAdapter id="id" location="…"/>}. */
    LibertyServerXml resourceAdapter(String id, String location) {
        Element adapter = child(server, "resourceAdapter");
        adapter.setAttribute("id", id);
        adapter.setAttribute("location", location);
        return this;
    }

    /**
     * {@code <webApplication>} at {@code /contextRoot}, its class loader seeing the adapters'
     * classes, if any, and the third-party APIs besides Liberty's default ones: MicroProfile
     * Telemetry's OpenTelemetry API is one, and the engine's traces need it.
     */
    LibertyServerXml webApplication(String location, String contextRoot, List<String> adapters) {
        Element application = child(server, "webApplication");
        application.setAttribute("location", location);
        application.setAttribute("contextRoot", "/" + contextRoot);
        Element classLoader = child(application, "classloader");
        classLoader.setAttribute("apiTypeVisibility", "+third-party");
        if (!adapters.isEmpty()) {
            classLoader.setAttribute("classProviderRef", String.join(",", adapters));
        }
        return this;
    }

    /** The document as UTF-8 text, indented. */
    String toXml() {
        try {
            Transformer transformer = TransformerFactory.newInstance().newTransformer();
            transformer.setOutputProperty(OutputKeys.ENCODING, "UTF-8");
            transformer.setOutputProperty(OutputKeys.INDENT, "yes");
            transformer.setOutputProperty("{http://xml.apache.org/xslt}indent-amount", "4");
            StringWriter text = new StringWriter();
            transformer.transform(new DOMSource(document), new StreamResult(text));
            return text.toString();
        } catch (TransformerException e) {
            throw new IllegalStateException("cannot write server.xml", e);
        }
    }

    private Element child(Element parent, String name) {
        Element element = document.createElement(name);
        parent.appendChild(element);
        return element;
    }

    private static DocumentBuilder newBuilder() {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            // The caller's elements are configuration, never a way to read files or fetch URLs.
            factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            DocumentBuilder builder = factory.newDocumentBuilder();
            // The failure is the exception's to report; the default handler would also print it.
            builder.setErrorHandler(new DefaultHandler() {
                @Override
                public void fatalError(SAXParseException e) throws SAXException {
                    throw e;
                }
            });
            return builder;
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException("the JDK's XML parser is not configurable", e);
        }
    }
}
