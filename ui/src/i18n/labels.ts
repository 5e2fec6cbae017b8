// Messages of the label buttons every screen shares (Planning, Scanning), English and Dutch.
export const en = {
  'labels.type': 'Label type',
  'labels.pdf': 'Open as PDF',
  'labels.making': 'Making the labels…',
  'labels.pdfAgain': 'Open the labels again',
  'labels.printer': 'Printer',
  'labels.choosePrinter': 'Choose a printer',
  'labels.printersLoading': 'Looking for printers…',
  'labels.noPrinters': 'No printer for this label type is set up: use the PDF.',
  'labels.print': 'Print ({copies}×)',
  'labels.sending': 'Sending…',
  'labels.sent': 'Sent to {printer}: print job {id}, {state}.',
  'labels.result': '{status}: {count} label(s)',
  'labels.shopOrderTitle': 'Labels of shop order {number}',
}

export const nl: Record<keyof typeof en, string> = {
  'labels.type': 'Etikettype',
  'labels.pdf': 'Openen als pdf',
  'labels.making': 'Etiketten maken…',
  'labels.pdfAgain': 'De etiketten opnieuw openen',
  'labels.printer': 'Printer',
  'labels.choosePrinter': 'Kies een printer',
  'labels.printersLoading': 'Printers zoeken…',
  'labels.noPrinters': 'Er is geen printer voor dit etikettype ingesteld: gebruik de pdf.',
  'labels.print': 'Afdrukken ({copies}×)',
  'labels.sending': 'Versturen…',
  'labels.sent': 'Verstuurd naar {printer}: printopdracht {id}, {state}.',
  'labels.result': '{status}: {count} etiket(ten)',
  'labels.shopOrderTitle': 'Etiketten van productieorder {number}',
}
