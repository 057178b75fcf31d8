package specimen

// vocab is one language's words for an invoice: for the labels a reader
// looks for, several synonyms (a layout picks one by its variant).
type vocab struct {
	title, number, issue, due, net, tax, payable, vat, billTo, customer         []string
	currency, iban, bic, desc, qty, unit, price, rate, amount, pos, page, payBy string
	units, items                                                                []string
}

var vocabs = map[string]vocab{
	"en": {
		title:    []string{"INVOICE", "Invoice", "TAX INVOICE"},
		number:   []string{"Invoice No", "Invoice number", "Invoice #", "Invoice No.", "Invoice Number"},
		issue:    []string{"Invoice date", "Date", "Date of issue", "Issue date"},
		due:      []string{"Due date", "Payment due", "Due", "Pay by"},
		net:      []string{"Subtotal", "Net amount", "Total excl. VAT", "Net total"},
		tax:      []string{"VAT %s%%", "VAT (%s%%)", "Tax %s%%", "VAT @ %s%%"},
		payable:  []string{"Total due", "Amount due", "Total", "Balance due", "Total payable"},
		vat:      []string{"VAT No", "VAT number", "VAT Reg. No.", "VAT ID"},
		billTo:   []string{"Bill to", "Invoice to", "Customer", "Billed to"},
		customer: []string{"Customer No", "Account No", "Client ref."},
		currency: "Currency", iban: "IBAN", bic: "BIC", desc: "Description", qty: "Qty", unit: "Unit",
		price: "Unit price", rate: "VAT %", amount: "Amount", pos: "#", page: "Page %d of {nb}",
		payBy: "Please pay %s by %s to the account below.",
		units: []string{"pcs", "h", "days", "kg", "ea"},
		items: []string{"Consulting services", "Software licence (annual)", "Printer paper A4, 80 g", "Network switch 24-port",
			"On-site support", "Cloud hosting, monthly", "Office chairs", "Delivery and handling", "Design workshop",
			"Toner cartridge black", "Maintenance contract", "Translation of manual", "USB-C docking station", "Training day"},
	},
	"de": {
		title:    []string{"RECHNUNG", "Rechnung"},
		number:   []string{"Rechnungsnummer", "Rechnungs-Nr.", "Rechnung Nr.", "Re.-Nr."},
		issue:    []string{"Rechnungsdatum", "Datum", "Belegdatum"},
		due:      []string{"Fällig am", "Zahlbar bis", "Fälligkeitsdatum"},
		net:      []string{"Nettobetrag", "Summe netto", "Zwischensumme", "Gesamt netto"},
		tax:      []string{"zzgl. USt. %s %%", "MwSt. %s%%", "Umsatzsteuer %s %%", "USt %s%%"},
		payable:  []string{"Rechnungsbetrag", "Gesamtbetrag", "Zahlbetrag", "Endbetrag"},
		vat:      []string{"USt-IdNr.", "USt-ID", "Umsatzsteuer-ID"},
		billTo:   []string{"Rechnungsempfänger", "Kunde", "An"},
		customer: []string{"Kundennummer", "Kunden-Nr.", "Ihre Kundennr."},
		currency: "Währung", iban: "IBAN", bic: "BIC", desc: "Bezeichnung", qty: "Menge", unit: "Einheit",
		price: "Einzelpreis", rate: "USt %", amount: "Gesamt", pos: "Pos.", page: "Seite %d von {nb}",
		payBy: "Bitte überweisen Sie %s bis zum %s auf das folgende Konto.",
		units: []string{"Stk.", "Std.", "Tage", "kg", "Pauschal"},
		items: []string{"Beratungsleistung", "Softwarelizenz (jährlich)", "Druckerpapier A4, 80 g", "Netzwerk-Switch 24 Port",
			"Vor-Ort-Service", "Cloud-Hosting, monatlich", "Bürostühle", "Versandkosten", "Workshop Konzeption",
			"Tonerkartusche schwarz", "Wartungsvertrag", "Übersetzung Handbuch", "Dockingstation USB-C", "Schulungstag"},
	},
	"fr": {
		title:    []string{"FACTURE", "Facture"},
		number:   []string{"Facture n°", "N° de facture", "Numéro de facture", "Facture N°"},
		issue:    []string{"Date de facture", "Date", "Date d'émission"},
		due:      []string{"Date d'échéance", "Échéance", "À régler avant le"},
		net:      []string{"Total HT", "Montant HT", "Sous-total HT"},
		tax:      []string{"TVA %s %%", "TVA (%s %%)", "Montant TVA %s %%"},
		payable:  []string{"Total TTC", "Net à payer", "Montant à payer", "Total à payer"},
		vat:      []string{"N° TVA intracommunautaire", "TVA intracom.", "N° TVA"},
		billTo:   []string{"Client", "Facturé à", "Adresse de facturation"},
		customer: []string{"N° client", "Code client", "Réf. client"},
		currency: "Devise", iban: "IBAN", bic: "BIC", desc: "Désignation", qty: "Qté", unit: "Unité",
		price: "Prix unitaire HT", rate: "TVA", amount: "Montant HT", pos: "N°", page: "Page %d sur {nb}",
		payBy: "Merci de régler %s avant le %s sur le compte ci-dessous.",
		units: []string{"pce", "h", "jours", "kg", "forfait"},
		items: []string{"Prestation de conseil", "Licence logicielle (annuelle)", "Papier A4, 80 g", "Commutateur réseau 24 ports",
			"Intervention sur site", "Hébergement cloud, mensuel", "Chaises de bureau", "Frais de port", "Atelier de conception",
			"Cartouche de toner noir", "Contrat de maintenance", "Traduction du manuel", "Station d'accueil USB-C", "Journée de formation"},
	},
	"nl": {
		title:    []string{"FACTUUR", "Factuur"},
		number:   []string{"Factuurnummer", "Factuur nr.", "Factuurnr.", "Factuur nummer"},
		issue:    []string{"Factuurdatum", "Datum", "Datum factuur"},
		due:      []string{"Vervaldatum", "Uiterste betaaldatum", "Te betalen voor"},
		net:      []string{"Subtotaal", "Totaal excl. btw", "Netto bedrag"},
		tax:      []string{"BTW %s%%", "Btw %s %%", "BTW-bedrag %s%%"},
		payable:  []string{"Totaal te betalen", "Te betalen", "Totaal incl. btw", "Totaalbedrag"},
		vat:      []string{"BTW-nummer", "Btw-id", "BTW nr."},
		billTo:   []string{"Factuuradres", "Klant", "Aan"},
		customer: []string{"Klantnummer", "Klantnr.", "Debiteurnummer"},
		currency: "Valuta", iban: "IBAN", bic: "BIC", desc: "Omschrijving", qty: "Aantal", unit: "Eenheid",
		price: "Prijs per stuk", rate: "BTW %", amount: "Bedrag", pos: "Nr.", page: "Pagina %d van {nb}",
		payBy: "Gelieve %s vóór %s over te maken op onderstaande rekening.",
		units: []string{"st.", "uur", "dagen", "kg", "stuks"},
		items: []string{"Advieswerkzaamheden", "Softwarelicentie (jaarlijks)", "Printpapier A4, 80 g", "Netwerkswitch 24 poorten",
			"Service op locatie", "Cloudhosting, maandelijks", "Bureaustoelen", "Verzendkosten", "Ontwerpworkshop",
			"Tonercartridge zwart", "Onderhoudscontract", "Vertaling handleiding", "USB-C dockingstation", "Trainingsdag"},
	},
}

// places are the streets, postcodes and cities of each seller country.
var places = map[string][]struct{ street, postcode, city string }{
	"DE": {{"Hauptstraße 12", "10115", "Berlin"}, {"Industriestraße 4a", "70565", "Stuttgart"}, {"Am Hafen 7", "20457", "Hamburg"}},
	"AT": {{"Mariahilfer Straße 45", "1060", "Wien"}, {"Landstraße 18", "4020", "Linz"}},
	"FR": {{"12 rue de la République", "69002", "Lyon"}, {"5 avenue Victor Hugo", "75016", "Paris"}, {"8 quai des Chartrons", "33000", "Bordeaux"}},
	"NL": {{"Keizersgracht 221", "1016 DV", "Amsterdam"}, {"Stationsplein 3", "3511 ED", "Utrecht"}, {"Havenstraat 40", "3024 SH", "Rotterdam"}},
	"BE": {{"Rue Neuve 88", "1000", "Bruxelles"}, {"Meir 24", "2000", "Antwerpen"}},
	"GB": {{"14 King Street", "M2 4LQ", "Manchester"}, {"2 Victoria Road", "EC1A 1BB", "London"}},
}

// banks are a bank part of the national account number and the bank's BIC,
// per country.
var banks = map[string][][2]string{
	"DE": {{"37040044", "COBADEFFXXX"}, {"50010517", "INGDDEFFXXX"}, {"70150000", "SSKMDEMMXXX"}},
	"AT": {{"12000", "BKAUATWWXXX"}, {"20111", "GIBAATWWXXX"}},
	"FR": {{"30004", "BNPAFRPPXXX"}, {"30003", "SOGEFRPPXXX"}, {"20041", "PSSTFRPPXXX"}},
	"NL": {{"INGB", "INGBNL2A"}, {"RABO", "RABONL2U"}, {"ABNA", "ABNANL2A"}},
	"BE": {{"539", "BBRUBEBB"}, {"001", "GEBABEBB"}},
	"GB": {{"BARC", "BARCGB22"}, {"NWBK", "NWBKGB2L"}},
}

var sellerNames = map[string][]string{
	"en": {"Northwind Supplies Ltd", "Bluebell Consulting Ltd", "Harbour Office Systems", "Redbrick Print Co.", "Kestrel Networks Ltd", "Lakeside Design Studio", "Oakfield Logistics"},
	"de": {"Müller Bürotechnik GmbH", "Schneider & Partner KG", "Alpenblick Software GmbH", "Weber Logistik GmbH", "Hoffmann Druck e.K.", "Becker IT-Service GmbH"},
	"fr": {"Dupont Fournitures SARL", "Atelier Lefèvre SAS", "Bureautique Moreau SA", "Girard Conseil SAS", "Imprimerie Roux", "Laurent Réseaux SARL"},
	"nl": {"De Vries Kantoorartikelen B.V.", "Jansen & Bakker B.V.", "Van Dijk ICT Diensten", "Smit Drukwerk B.V.", "Visser Logistiek B.V.", "Mulder Advies"},
}

var buyers = []struct{ name, street, postcode, city, country string }{
	{"Greenfield Trading GmbH", "Lindenallee 5", "50667", "Köln", "DE"},
	{"Atlas Engineering B.V.", "Laan van Meerdervoort 70", "2517 AN", "Den Haag", "NL"},
	{"Société Générale de Services", "14 boulevard Haussmann", "75009", "Paris", "FR"},
	{"Brightwater Foods Ltd", "3 Mill Lane", "BS1 4DJ", "Bristol", "GB"},
	{"Zeilmaker Holding N.V.", "Grote Markt 9", "9000", "Gent", "BE"},
	{"Fischer Maschinenbau AG", "Bahnhofstraße 21", "80335", "München", "DE"},
	{"Boulangerie Martin", "2 place du Marché", "44000", "Nantes", "FR"},
	{"Hollandia Media", "Oudegracht 112", "3511 AX", "Utrecht", "NL"},
	{"Tiroler Holzbau GmbH", "Museumstraße 3", "6020", "Innsbruck", "AT"},
	{"Cedar Point Hotels", "77 Harbour Road", "D02 X285", "Dublin", "IE"},
}
