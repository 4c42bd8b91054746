/// Private keys generated once with `openssl genpkey` for these tests only (RSA-2048 and P-256, PKCS#8 PEM).
///
/// Kept as text so no test generates an RSA key at run time: key generation is slow and would block a
/// cooperative thread while in-process servers must answer.
enum FixtureKeys {
    static let appleSigning = """
        -----BEGIN PRIVATE KEY-----
        MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQCx+9G04dQNmFNm
        UBird72jdlITXOQvSuiAFriEiGQM6+jMx3k0S38eNveZwFEC/GacygJkbY4VC1Ro
        I7WXHwf4lGHU4EZNJQ9cSNjzAbsQt+8j5GH0yn4eJCv9lB6+g5ZHQa3TfulIkfkp
        YmoBXW7K3A1GNpILFCgHEmWd5eoAp6qRuhRXu7Il7AjfvnOwT5DpEwZxRooZAVqF
        RErNW8NewxyNZJFEr5GOH0BowYw8DAX0q/9Hn7gZF5NfdIIzPHZsejkIzIxIPuv9
        hiD7dAWXtRwNezibX5njK7piIoB2xtNoU88yWPDJc0RKeHm0h1ett6HKPz63q4Wt
        +2uONtMVAgMBAAECgf99sPqMnfRTPxqVj7EEJ94iiXq8hy+vJTpFI/9pVMZ7D6GT
        vaXdlUXYE3w5umxIYr39scfLhSxod0VU5ThKEdBe5rqWhyEp81pDhPWaTEwb1OXc
        o2PfVqPtPuJ8yHXcro3yGcgcrZGwx8v30W7BMq8IgqhgBvwyxaW3ypL4nMMp/AFL
        WZokHbnc/XA7BPRP3HbBjnjNuqN5AvYbhaQb+DkocO9poR5zt/A2d8kGhJVBoHlJ
        COhjMTa129jUZTJT1Iee22G35t1r/SOznI26ngLnErMdecB6bz47WS2iDqSixh6F
        G5U6m2llGmDVuYwWmR4cuZOiw+dUGVVOLhorEpMCgYEA+3V3k1jbSogsz9wXg770
        vKEjLQqBGYd5WxPkzKzLns0Dd+reJGYzrW2Fw4kR9W1Vhc69XfBuBPw7Urtqmu2K
        F3TBO9XQJcFYvmiPPhbdz9x778/Qxa1wyB079ZPJH+HazYM9f8qRoHej4VOg+fL1
        +W6trHvauy+iRfgNLooK8VsCgYEAtTKqPW7LcnRQTJLK4NdrclDADvOp3K/LYijN
        Vpd+SVS4stQ68DkaZ3k/wyot+ui43XpYluzJ00i3l0EgCOTdwvoJ2yvJnuHjesCp
        rrHXGcq+MkiWo9TjfhZItjdJ5da2DssCj3+9N93pcqDak6P4yrrdRme6JIaJrDv6
        H0I6iE8CgYBScoFyXoAIP/3xaUiMed/kuTC/Y+JQbIrtwegS89UPjEjG2MtdQ+VN
        x8tEAX1R6zdPWCne0yY/nDQXPDwH8DqG1lFFPSWyO2LNi5rr0LOJo9E/H/Rj3CpO
        csdmDb60JWmIWK+hZtm4s4GYL8NoMLFVx2RKWZGuLkAWkO5BhCFyYQKBgQCdUL6T
        FZVW6nso8C1p5j2oA0mr8YshShMXRvt32ZFQE1lEEZSWKc2t1owwYneHJvQRff5a
        Enzrjm+ux2ELt8B9Xl6eRbcH1XCNi6YGQOrSvr5Ao9r9pIBaYPiCEyB6ht6Lm1++
        vJXIYkcjOVpr4mnHgVNJpBbtTU1MFsqCxxpQawKBgQDWuWTdTHhcGgVy8bjFb49y
        QbTZVLguXm9ZaDTzor6s7YOmKi4wj/aw+jFAt/jxueS7SShXkpRRdWxvnA6Yjz2S
        KIfBvr9lzQ284r8V0CODHqrhc7lRF/NabIzaabKJW6XUbGxNQYW9n5BvSnYm9HmA
        hhuViGVRveUChI4cVUGT/Q==
        -----END PRIVATE KEY-----
        """

    static let googleSigning = """
        -----BEGIN PRIVATE KEY-----
        MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQCzTp05vosYjRJT
        KZp5zM7+RqjUGsm2o0b2sbT2IGvUGaS/+nrn9d/kHDoAM7AdaxvbCghr98xh2jdS
        R6oRrfgUqOhpqazRN//39ZeIvx8eFHDGxJ4qwVaMQlFy182wsyYa4zt0lK8RYdBG
        0jM7N6oyBc9XY7piZHpLjcVWn/EQyJJ+OVqNm0hz4vB6vdCE+p8EZh+GC4DAcLIu
        tff45pWM1qEW0fJTPBVZB+wGJM5c8BUAYKSbbpNoFDYtrksKWDb+Tz5JM4lxQZAF
        6QDBk6u8uRc4mRwGbL5KD2OJ35n6OlpxMom50Qbkc+rfPGT5eVDTNPmL4hfjSCSj
        7HkLpJFBAgMBAAECggEAAfBWWNoTHK3lMyiJLVajHQi5R3V6gYvTBQi0eZwlutXv
        9iCFl9qovg2OJO+SJJwKdZ0qdI2J7nOfvStBvQAbdXCa7l4ulHbAcQlNBx49DkIR
        iuxsLvdjH9Q5b4Ra4sGR5pTfFSFswf93pzWjfrUZLUIy2vOo17KtN+oUkoFrU72B
        FUfhdUClAoCPxWd6ZjGX4prwTC0TQVOnSo68a73xl2lcDSnMSPicns7/hCbC3lz8
        4VAz3iBcITnglTe58dZ2Dq1JGXrKRDK87u5tYXlkVRfiatysXqV51zxadKAg+GGU
        kMBvFMMPTsQraksAFG5JExrX8BKECYavGfL/DZQhgQKBgQDd0Pvb/CKZ9/tgmwHn
        SxlrbKrNIwLO/Ev1BSXkTZGJ7pVCRfcOupRXNS/Ah4g7FcVSJkrp9SPGaQWh6zjm
        5weU3l1qW2KAZPuKqI7IerO61OWUN4YDknJOUQE9OdJ7a5rMq56y51nAZwkjQZYj
        xTXtE/CU6+cH/C2fg/4m/dukgQKBgQDO8JImkkrWVp/T2PAtgkqdRdMHypivXPWL
        /rRoXnNjjpqF/4RY/dxhKZwkAyMc7Xsb4f84g0UUnjFhIsyTWsMauQm+7O+0NUHn
        V4Vmt3/GpOG/zEU1loFzJ0EHXvZJRCtlTd3pY88THnoyhXV8b3NTzR1fl5TVIJIL
        MrzEA5eMwQKBgQDV3M9oKzHlR02rt+fe6+5nP49yV0Y28NP/OeZtt0gSN+Da1AA+
        yC+L4XDX7RSw+u2Tpe3mon7KpqlSkyr6nVcW9koU6GURK8vGxXtc2cj94pQzElF4
        kjL5RWqvcFd6vaWznehVz28ebXlG785lUJgMq4Py4XuPnFkUijt5tpqVgQKBgQCR
        EQgDTg50Tulf4vYLkQipU6dqENYUKMBhUT464+tT4UXlpYerstpoqniwrhpRTxE8
        LKNzhGJK39KR24k5yyh2dTylwQcQdz0p5aq4pO5H3JH8mD/0HvvEM8JcXm+cUNNz
        ArELyVICfxz+iZwgjSh1mJZ8ypAlD94RR5IYfsQggQKBgEK4p69gn74UjIUWX935
        fcnd0N9QtvwFtAVVyCAzPNJd6cU3OYPq3kW5lbhoUrTFv9t87AZ3/dWHymCq5mJi
        3jg0FQw9LJMP9Wz/sTwtnMJDOidUKBQpje3gjfW9ZUBMAhdpyDwpecr3yF/U5GtU
        mgkbC70O1r9ppq0Ir2SidinH
        -----END PRIVATE KEY-----
        """

    static let facebookSigning = """
        -----BEGIN PRIVATE KEY-----
        MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQC1JD/zXspKwNoi
        9kSGyNgO3rS11Putd1pO1kfGhD9EKHKvffNZIKCFevaIqiCH+d19p5pQt4CC46Oz
        1G+ZY5vsAKCNAeA9VVSmHOvM+pu25SuBJDsGNKRfpoRDeJ51XgnS6z3+rrsAKFMf
        VsyM8wlnbpI6Rn3Maq0ffW/Kz/qB19nN03rNgKARF+/V+qfGfeCe3P60YTTAbkfz
        n96PZYr84QyyH92i31pus/COSspq9fNnIFlQ2SufXDKRB+JlomCPtIMGtv8HsXus
        NyYtwfVj8KR6eEJpwVBbw0ZhqxT9cFJmCtQnyiQUsf+Kf5bhpmsX8UZuatcRnCng
        eP2gTJG3AgMBAAECggEAHfbOIVsHyY/XRbtJIKaunt8WM5H0xAAfTzVBEESmFoc+
        WWtTSuYLx6jMiVTjJrsdeYC1FS8VshEn7kJw54XDsCl2ZXzu9BZed1AHbZPzGDEW
        njk5DlC89BmefW7Bf5a7t0k0qyGKS39gKKn6EkLNxm9S/xLUEnF/C9t7F6iJvtqH
        q7FuNjuff7XWa2/NaZY47ZfjLa048OdBiM7sHRAYoHr5BXb+dSiIzyV6kVs4xCbT
        VchS1XtnWQxuyfq0pwm+BrdnvLoi5mxKDtVu/NMGwl/kNxaMCaF2GvNmL4V/bcbC
        TNstpy/mHV+JY2JIrZdOf89TGE2hd7QGEkxeBB1xAQKBgQDaYjujBdCFU2zNoDzU
        f6fGNVytpmuXQjZxtKFapWy17nNU2UH82GzagQg2y3OzjFmyXOGTSmAxZpdLcuNm
        bWqYjJjSbSj9kIIPxv27UFmOAyLTj8premIppXF/Jw2z30xRP6uVN7xnO7BBR0Kx
        g5eISXa11oN2AOOTGhXGET7rNwKBgQDUV81axnC1AO/e/3KSI9NH67aob9SKexKi
        aWTuaehzkFzSf0BBjsBJAnfOGMDLdgiJYQ783JlnTtp9aVdzu/4jSxLY8//hqvdl
        xsYvX/5EuhLHYIrdPF2HMIKh664xmYsT+rjTV+s6/NBfMb9iwtHXa/0bBxvg7XQj
        Gw6lzSvNgQKBgQCkRLoZUZldgLhaIEtBiNiZ1q/lC0bpG2w6saWhuseAPmJQk6/4
        Uo/m+KJGHVnl2A/sg8NGeO7Mmh/6J+x3spw5LaESv/vSaC39UjCwAquqkB9VRlb7
        664FJ6as/6JmB/SvNRaLAsbcXGCjacf4IUUNxjzeYQK388k7cKaqO3S5lwKBgH2d
        25wh3LcXcM/pKmwNyYW4ifwm/ANYP3PZCZ6JBLyo4GCeavLdch8+2IUR26wBjZdH
        1cf88LtOyK58TQHoarWSSfoSjoN/0o9hAgkwrokV0toj4MJ0XZgGOKF1fT1WahJN
        tl1Am6XvvY0zLtdMDTt1ZOxCTlnH33aNISMwtwMBAoGBAKJ/AlYhlBQXOI3ZAcGa
        JhB8hjWU5eCkIp56fPOvepOZ9K8Q3je5MdsBWCqmmhQqj0BUs0Kig3SMkSfcD6Yf
        kIIdBqxxoktZYzsK6W6Tw/oQVpN87mn2L/OYUly9nvuNnKikGaR3TDIeD6XQkIWL
        ibQ+SoKf7EYkUoltGj0O/P9f
        -----END PRIVATE KEY-----
        """

    static let foreignSigning = """
        -----BEGIN PRIVATE KEY-----
        MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQCPHi42uEVcckff
        uBkedrMs02JGA6gWHW21I7Em6t3DwhrWnh+xI125zJ79kgdr7pfICByKjrzyCQyy
        ftm7AzqAB/y0bb8GI28F/+eZ7k7Hy0vq9Cz1uGNo78WEEgFvqpv+2KrT4B11JA/d
        gLh8h3ZyugK1g7GE2PC8E8NHJ3EQeC6mbR6j1nRbVo1dFLgg+ouonypsQOvFq5QC
        Z9PWp/DkCZ+ZzazEB4rpBgQfp9Ikq2svETIeXbTtzzpDycD4RyT+Ih/N5gkwwkTF
        7s2B2mRrnXk1WVDFpDfuwdw4jRIEzM1arjapE9X3DrPylhf7gcXEEW7OHfn8vTZO
        6Pr55qxDAgMBAAECggEABxESbxlCM4JhEibg9qQdzMTTQWnEzvK9DAirIqTONnBL
        KvW70t9QLXBxGUwwmZ+6VuIvppfNtJXFzrp8vcM3DENYswAIQqFVRhKQuQUPVsYv
        BXbxEWD9Z50PP6oz7/OYqEjChpu2WKZjMii880ktDBUrNRM/nLOpj1/acJT9/DYg
        Cl35XC2rtN06cg6r5NwvwWh9J+/RpSdGo9hZCJVkI301YNAh0bCKpZm5217lpzb7
        ncW/wTyROF+OUAU5h3DPExroGWJKZwDIOluEzYSWk0rnyDTKpoxKQATVx6qi3CTr
        s55uL506TZQRtu1IOmvMjWDhJScW4io0nvaq7eVEwQKBgQDJQM/7SMIDjuTnQxkq
        YzJyy7gVFsiZWJn4Lej5jIXeuZt9GtroDA9/2w1l5XN4RVRCqKR5zVu+85fnJUQu
        7shVakupll0IwMyqtWHI3/qLIAOJ0psCPI34QYazAKu+jhBUVB74cqKZs6EuZ4m9
        VMQNJobtNDUW0PgiFf9fVkUNOQKBgQC2DNnqivBgJKghkdM2H98mBvhI4UJm6vBm
        GtNFzjaVGi9pN/I+Z2gJTYvOPU8q30pG1/VNH54Wfw89ooOMmt9xSQBLeXtpZKHO
        WGccmYl0Cz8wpIR9GruvCgU5USmXR0meAaTvQeFrgeUxIhHM6N/6V36ZLGck5CsR
        mSqlFnvBWwKBgAjJIIs6wOWA3nNOFZIpJHGofQ/Gn9k56fbQokQKo2l2ttf+TSIm
        LKMLQAl7u8+7TxNd41hB48hxP+diVBisaeh4rHbpzoPsTsMBChTH2lsqeZ0RqZyu
        YhA9ZBD6bYTzFLlptrRn5LtLATVSZcvzIF/ml6tRRSQK2Vo7lZtm27rZAoGAT/tb
        bkE2lHbma0E/E0NzbaiYQqS84KyNi75zXfLYZi+H7ulGg4Y43gV0y9qBwqsxXeiZ
        fBXNBcMy9fhFZWvRiVryRzaLMuWkdRy/yH/oNNSQIZXWI4SwOpnja6gt5qnKPSIp
        zXgbSnlaMXjvayBQ7xKrqy4n7rxT87pgUwGKw4sCgYApMWO34ZDmRYOdVmUr6D1D
        DY6XLpjTn9DWID08baRgGXanowuD2jwDH7iYB0I9CR1Swcwlx0VmaPCcrYwy58H9
        s60cWvsP4SYvJQ2W5U4hxQJkfAAIMVQKZhXiUN+AXV4GlGwf20tkXJ0Xzw/NXJ/d
        8V0xaXewpV5AINfeB8BoJA==
        -----END PRIVATE KEY-----
        """

    static let appleClient = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgh7pAjb0iDzUBG+Do
        KSTbb+vWR58YF5ayDkOZGy8o5BKhRANCAATES8QEQxp88rTHk//fcpKorBZ1MiG+
        c9w/TNF158+CWIodpx71C/RMi7WztZFYYh5AX1L4Hqw1KBPuRaCejRNB
        -----END PRIVATE KEY-----
        """

    static let unregisteredAppleClient = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgi862+3bkHGD8pyCU
        ubEuKCZMsVVQVYahkRXIkbvpLQGhRANCAAQhSp9oHLiP4ASxb9jVnTQpsdPFvHZ+
        riO2ilmdTeMNVJKNzPUYrYG0sVuiGcnO+uBORFQsJZ8iHbQNzpskez0N
        -----END PRIVATE KEY-----
        """
}
