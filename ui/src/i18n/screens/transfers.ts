// Messages of the transfers screen, English and Dutch (spread into the catalogues in ../messages*.ts).
export const en = {} as const

export const nl: Record<keyof typeof en, string> = {}
