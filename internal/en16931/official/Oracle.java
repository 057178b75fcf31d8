import java.io.*;
import java.nio.charset.StandardCharsets;
import javax.xml.transform.stream.StreamSource;
import net.sf.saxon.s9api.*;

/**
 * Oracle judges e-invoices with CEN's compiled EN 16931 validators, both stylesheets compiled once.
 * Arguments: the UBL stylesheet, the CII stylesheet. On stdin, one request after another: a header line
 * "ubl LENGTH" or "cii LENGTH", then LENGTH bytes of the document. On stdout, one line per request:
 * "ok TAB fatal rule ids TAB warning rule ids" (comma-separated), or "error TAB message" when the
 * stylesheet could not judge the document.
 */
public class Oracle {
    public static void main(String[] args) throws Exception {
        Processor proc = new Processor(false);
        XsltCompiler comp = proc.newXsltCompiler();
        Xslt30Transformer ubl = comp.compile(new StreamSource(new File(args[0]))).load30();
        Xslt30Transformer cii = comp.compile(new StreamSource(new File(args[1]))).load30();
        // A document the stylesheet cannot judge is answered as such below; Saxon need not also print it.
        javax.xml.transform.ErrorListener quiet = new javax.xml.transform.ErrorListener() {
            public void warning(javax.xml.transform.TransformerException e) {}
            public void error(javax.xml.transform.TransformerException e) {}
            public void fatalError(javax.xml.transform.TransformerException e) {}
        };
        ubl.setErrorListener(quiet);
        cii.setErrorListener(quiet);
        XPathCompiler xp = proc.newXPathCompiler();
        xp.declareNamespace("svrl", "http://purl.oclc.org/dsdl/svrl");
        XPathSelector failed = xp.compile("//svrl:failed-assert").load();
        QName id = new QName("id"), flag = new QName("flag");
        DataInputStream in = new DataInputStream(new BufferedInputStream(System.in));
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, "UTF-8");
        out.println("ready");
        out.flush();
        String header;
        while ((header = readLine(in)) != null) {
            String[] h = header.split(" ");
            byte[] doc = new byte[Integer.parseInt(h[1])];
            in.readFully(doc);
            try {
                XdmDestination dest = new XdmDestination();
                (h[0].equals("cii") ? cii : ubl).transform(new StreamSource(new ByteArrayInputStream(doc)), dest);
                failed.setContextItem(dest.getXdmNode());
                StringBuilder fatal = new StringBuilder(), warning = new StringBuilder();
                for (XdmItem item : failed) {
                    XdmNode n = (XdmNode) item;
                    StringBuilder b = "fatal".equals(n.getAttributeValue(flag)) ? fatal : warning;
                    if (b.length() > 0) b.append(',');
                    b.append(n.getAttributeValue(id));
                }
                out.println("ok\t" + fatal + "\t" + warning);
            } catch (Exception e) {
                out.println("error\t" + String.valueOf(e.getMessage()).replaceAll("\\s+", " "));
            }
            out.flush();
        }
    }

    private static String readLine(DataInputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1 && c != '\n') b.write(c);
        if (c == -1 && b.size() == 0) return null;
        return b.toString("UTF-8");
    }
}
